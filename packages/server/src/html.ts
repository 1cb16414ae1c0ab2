/** Escapes text for HTML element content and quoted attribute values (OWASP XSS prevention rule 1 and 2). */
export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/gu,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] as string,
  );
}
