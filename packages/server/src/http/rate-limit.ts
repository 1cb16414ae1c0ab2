/** Route options for a per-client-address limit (@fastify/rate-limit; the address follows TRUST_PROXY). */
export function limit(rate: { max: number; windowMs: number }) {
  return { rateLimit: { max: rate.max, timeWindow: rate.windowMs } };
}
