/** A JSON answer of the provider, read loosely: tests assert on its fields. */
// biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and assert on them.
export async function readJson(response: Response): Promise<any> {
  return response.json();
}
