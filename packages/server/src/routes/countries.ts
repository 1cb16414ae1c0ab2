import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { Negotiator } from "@fastify/accept-negotiator";
import { api, LANGUAGE_CODES, LANGUAGES, type Language } from "@gatehouse/contract";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config.ts";
import { countryList } from "../countries.ts";
import { apiLanguage } from "../http/client.ts";
import { mount } from "../http/mount.ts";

/** One language's list as JSON, and compressed once at start as hard as brotli and gzip go. */
interface Encoded {
  identity: string;
  br: Buffer;
  gzip: Buffer;
}

/**
 * Every language's list, serialised and compressed once at start: the names and their order never change while
 * we run, and the list is the largest API answer (8 KB), so no request compresses it again (issue #9).
 */
function buildLists(): Record<Language, Encoded> {
  return Object.fromEntries(
    LANGUAGE_CODES.map((language) => {
      const json = JSON.stringify(countryList(language));
      const encoded: Encoded = {
        identity: json,
        br: brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY } }),
        gzip: gzipSync(json, { level: constants.Z_BEST_COMPRESSION }),
      };
      return [language, encoded];
    }),
  ) as Record<Language, Encoded>;
}

export async function countryRoutes(app: FastifyInstance, { config }: { config: Config }) {
  const lists = buildLists();
  const encodings = new Negotiator<"br" | "gzip">({ supportedValues: ["br", "gzip"] });
  mount(app, api.countries, async (request, reply) => {
    const language = apiLanguage(request, config);
    const list = lists[language];
    reply
      .header("content-language", LANGUAGES[language].tag)
      .header("vary", "Accept-Language, Cookie, Accept-Encoding")
      .type("application/json; charset=utf-8");
    const accepted = request.headers["accept-encoding"];
    const encoding = typeof accepted === "string" ? encodings.negotiate(accepted) : null;
    // Sent as stored: the compression layer leaves an answer that already carries its encoding alone.
    return encoding ? reply.header("content-encoding", encoding).send(list[encoding]) : reply.send(list.identity);
  });
}
