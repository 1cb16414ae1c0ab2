import type { ReactNode } from "react";

/**
 * A translation with one `<tag>words</tag>` inside, the words rendered by `wrap` (a link, say): what react-i18next's
 * Trans does for one tag, without its HTML parser, so the sign-in route does not carry it (issue #9's budget,
 * docs/decisions.md). A text without the tag is rendered as it is.
 */
export function tagged(text: string, tag: string, wrap: (words: string) => ReactNode): ReactNode {
  const open = `<${tag}>`;
  const close = `</${tag}>`;
  const start = text.indexOf(open);
  const end = text.indexOf(close, start + open.length);
  if (start < 0 || end < 0) return text;
  return (
    <>
      {text.slice(0, start)}
      {wrap(text.slice(start + open.length, end))}
      {text.slice(end + close.length)}
    </>
  );
}
