#!/bin/sh
# Every step of the container image, in one place. The Dockerfile RUNs and CMDs this script and nothing else, and
# packages/server/test/image.test.ts carries out the Dockerfile on this machine (which cannot run containers), so the
# steps the tests prove are the image's own. Usage: deploy/image-steps.sh <step> [arguments]
set -eu
cd "$(dirname "$0")/.."

# The Node flags of `npm start` (package.json "start"; the image test checks they stay the same): 4 MB young-generation
# semi-spaces and a 192 MB old generation keep the gateway's resident memory low (docs/decisions.md "Memory at rest").
NODE_FLAGS="--max-semi-space-size=4 --max-old-space-size=192"
# The user the image runs as: the official Node image's `node` (the Dockerfile's USER; the image test checks it).
APP_UID=1000
# Node's compile cache, filled at build time (warm): a start reads our type-stripped TypeScript from it and never
# loads the type-stripping compiler, about 20 MB resident for the life of the process.
export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$PWD/.cache/node-compile}"

step="${1:-}"
if [ $# -gt 0 ]; then shift; fi
case "$step" in
  build-deps)
    # The web app's build tools are @gatehouse/web's own dependencies: nothing of the dev dependencies (test runners,
    # a Node binary, PostgreSQL for the tests) is needed to build it.
    npm ci --omit=dev --workspace @gatehouse/web --workspace @gatehouse/contract --no-audit --no-fund
    ;;
  build-web)
    npm run build
    ;;
  runtime-deps)
    # The production dependencies of the server and the contract only: no build tool, no React, no dev dependency.
    npm ci --omit=dev --workspace @gatehouse/server --workspace @gatehouse/contract --no-audit --no-fund
    ;;
  warm)
    # Node loads and compiles every module the gateway imports, then the configuration check stops it (nothing is
    # configured here), and the compile cache is written at exit; the admin command line the same way (without a
    # command it prints its usage). Node keeps one cache folder per user id, so the cache is filled as the user the
    # image runs as, then handed back to root, read-only like the rest of the application.
    uid=$(id -u)
    if [ "$uid" = 0 ]; then uid=$APP_UID; fi
    rm -rf "$NODE_COMPILE_CACHE"
    mkdir -p "$NODE_COMPILE_CACHE"
    chown "$uid:$uid" "$NODE_COMPILE_CACHE"
    # shellcheck disable=SC2086
    env -u NODE_COMPILE_CACHE node -e '
      const { spawnSync } = require("node:child_process");
      const [cache, uid, ...flags] = process.argv.slice(1);
      const as = process.getuid() === 0 ? { uid: Number(uid), gid: Number(uid) } : {};
      const env = { PATH: process.env.PATH, NODE_COMPILE_CACHE: cache };
      const run = (args, extra) => spawnSync(process.execPath, args, { ...as, stdio: "ignore", env: { ...env, ...extra } });
      run([...flags, "packages/server/src/main.ts"], { NODE_ENV: "production" });
      run(["packages/server/src/admin/cli.ts"], {});
    ' "$NODE_COMPILE_CACHE" "$uid" $NODE_FLAGS
    if [ "$(id -u)" = 0 ]; then chown -R 0:0 "$NODE_COMPILE_CACHE"; fi
    chmod -R a+rX,go-w "$NODE_COMPILE_CACHE"
    if ! ls "$NODE_COMPILE_CACHE" | grep -q -- "-$uid\$"; then
      echo "image-steps warm: no compile cache was written for user $uid" >&2
      exit 1
    fi
    ;;
  start)
    # exec: node replaces this shell, so the container's SIGTERM reaches it (main.ts closes cleanly on it).
    # shellcheck disable=SC2086
    exec node $NODE_FLAGS packages/server/src/main.ts
    ;;
  admin)
    # The admin command line (docs/configuration.md "Admin command line"): docker compose exec gatehouse-1 deploy/image-steps.sh admin …
    exec node packages/server/src/admin/cli.ts "$@"
    ;;
  health)
    # Liveness, for the image's HEALTHCHECK (slim images have no curl): the process answers /healthz.
    exec node -e '
      fetch(`http://127.0.0.1:${process.env.PORT || 8080}/healthz`, { signal: AbortSignal.timeout(4000) })
        .then((answer) => process.exit(answer.ok ? 0 : 1), () => process.exit(1));
    '
    ;;
  *)
    echo "usage: deploy/image-steps.sh build-deps | build-web | runtime-deps | warm | start | admin <command> | health" >&2
    exit 2
    ;;
esac
