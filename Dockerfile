# syntax=docker/dockerfile:1
# Gatehouse's container image (docs/operations.md "Deploy"): docker build -t gatehouse .
# Every step is a step of deploy/image-steps.sh. packages/server/test/image.test.ts carries out this file on a machine
# without containers (a folder per stage, COPY as copies, RUN and CMD run as written), so keep to what it follows:
# FROM, WORKDIR, ENV, COPY (with --from), RUN deploy/image-steps.sh <step> (with a cache mount), USER uid:gid, EXPOSE,
# HEALTHCHECK, CMD.

# Node at the version the repository pins for its tests (package-lock.json's `node`; the image test checks they
# match). Pin the digest too where you build: node:24.21.0-trixie-slim@sha256:… (docs/operations.md).
FROM node:24.21.0-trixie-slim AS build
WORKDIR /app
# Dependencies before sources: this layer is rebuilt only when the lock file changes.
COPY package.json package-lock.json tsconfig.base.json ./
COPY packages/contract/package.json packages/contract/
COPY packages/web/package.json packages/web/
COPY deploy/image-steps.sh deploy/
RUN --mount=type=cache,target=/root/.npm deploy/image-steps.sh build-deps
COPY packages/contract packages/contract
COPY packages/web packages/web
RUN deploy/image-steps.sh build-web

FROM node:24.21.0-trixie-slim
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/contract/package.json packages/contract/
COPY packages/server/package.json packages/server/
COPY deploy/image-steps.sh deploy/
RUN --mount=type=cache,target=/root/.npm deploy/image-steps.sh runtime-deps
COPY packages/contract/src packages/contract/src
COPY packages/server/src packages/server/src
COPY packages/server/config packages/server/config
COPY --from=build /app/packages/web/dist packages/web/dist
RUN deploy/image-steps.sh warm
# The official image's `node` user: the process owns none of the files it runs, and needs to write none (the
# database is PostgreSQL; compose.yaml also makes the root file system read-only).
USER 1000:1000
EXPOSE 8080
# Liveness (/healthz), not readiness: a database outage makes every node unready at once, and restarting them all
# would not help; the load balancer checks /readyz to route around a node that cannot serve (docs/decisions.md).
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["deploy/image-steps.sh", "health"]
CMD ["deploy/image-steps.sh", "start"]
