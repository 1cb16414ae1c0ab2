/**
 * The cursor of the security page's lists (issue #27): where the next page starts, the last entry's time and id,
 * opaque to the client (base64url of `time.id`). Each list names the ids it makes, so one list's cursor is not
 * another's, and anything this server did not make reads as undefined (the route answers 400, never a 5xx).
 */
export interface Position {
  at: number;
  id: string;
}

export function writeCursor(position: Position): string {
  return Buffer.from(`${position.at}.${position.id}`).toString("base64url");
}

/** The position a cursor names, when `id` matches the list's ids whole; undefined for anything else. */
export function readCursor(cursor: string, id: RegExp): Position | undefined {
  const match = /^(\d{1,15})\.(.+)$/su.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match?.[2] || !new RegExp(`^(?:${id.source})$`, "u").test(match[2])) return undefined;
  const position = { at: Number(match[1]), id: match[2] };
  // Only the exact text writeCursor makes: base64url decoding forgives stray characters, which would be a second form.
  return writeCursor(position) === cursor ? position : undefined;
}
