import type { ReactNode } from "react";

/** A link whose words come from a translation (Trans fills them in), e.g. "terms of use" in a privacy notice. */
export function TextLink({ href, children }: { href: string; children?: ReactNode }) {
  return <a href={href}>{children}</a>;
}
