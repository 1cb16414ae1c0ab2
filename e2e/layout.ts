import type { Page } from "playwright-core";

/**
 * What a person sees go wrong on a screen, measured in the page as it is drawn: sideways scrolling, controls that
 * overlap, a section heading as big as the page's, no way to go on, and in Japanese and Korean a line broken
 * inside a word. Each problem is one readable line; an empty list means the screen is fine.
 */
export function layoutProblems(page: Page, language: string): Promise<string[]> {
  return page.evaluate(inspect, language);
}

/** Waits until the page has laid out and painted its current state (two animation frames). */
export function settled(page: Page): Promise<void> {
  return page.evaluate(
    () => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))),
  );
}

/** Runs inside the page: no imports, no closures over test code. */
function inspect(language: string): string[] {
  /** A section heading at most this fraction of the page heading's size (1.15rem under 1.6rem). */
  const SECTION_HEADING_RATIO = 0.8;
  const problems: string[] = [];
  const root = document.documentElement;
  if (root.scrollWidth > window.innerWidth)
    problems.push(`scrolls sideways: ${root.scrollWidth}px of content in a ${window.innerWidth}px window`);

  const describe = (el: Element) => {
    const text = (el.textContent ?? "").trim().slice(0, 30) || el.getAttribute("aria-label") || "";
    return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${text ? ` "${text}"` : ""}`;
  };
  const visible = (el: Element) => {
    const style = getComputedStyle(el);
    return style.visibility !== "hidden" && style.display !== "none" && el.getClientRects().length > 0;
  };

  // Controls: no two overlap, except a button drawn inside a text field (show/hide), which must stay clear of
  // the field's text area (the content box, left of its right padding).
  const controls = Array.from(
    document.querySelectorAll("a[href], button, input:not([type=hidden]), select, textarea, [role=button]"),
  ).filter(visible);
  const rects = (el: Element) => Array.from(el.getClientRects()).filter((r) => r.width > 0 && r.height > 0);
  const boxes = controls.map(rects);
  const overlap = (a: DOMRect, b: DOMRect) =>
    Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
    Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const textArea = (input: HTMLInputElement) => {
    const box = input.getBoundingClientRect();
    const style = getComputedStyle(input);
    const right = box.right - Number.parseFloat(style.paddingRight) - Number.parseFloat(style.borderRightWidth);
    return new DOMRect(box.left, box.top, right - box.left, box.height);
  };
  for (let i = 0; i < controls.length; i++) {
    for (let j = i + 1; j < controls.length; j++) {
      const [a, b] = [controls[i] as Element, controls[j] as Element];
      if (a.contains(b) || b.contains(a)) continue;
      if (!(boxes[i] ?? []).some((ra) => (boxes[j] ?? []).some((rb) => overlap(ra, rb)))) continue;
      const input = [a, b].find((el): el is HTMLInputElement => el instanceof HTMLInputElement);
      const other = input === a ? b : a;
      if (input && other.tagName === "BUTTON" && input.parentElement === other.parentElement) {
        const area = textArea(input);
        if (!rects(other).some((r) => overlap(r, area))) continue;
        problems.push(`${describe(other)} covers the text of ${describe(input)}`);
        continue;
      }
      problems.push(`${describe(a)} overlaps ${describe(b)}`);
    }
  }

  // Headings: a section's heading reads as part of the page, clearly smaller than the page's own.
  const h1 = document.querySelector("main h1");
  const h1Size = h1 ? Number.parseFloat(getComputedStyle(h1).fontSize) : Number.POSITIVE_INFINITY;
  for (const h2 of Array.from(document.querySelectorAll("main h2")))
    if (visible(h2) && Number.parseFloat(getComputedStyle(h2).fontSize) > SECTION_HEADING_RATIO * h1Size)
      problems.push(`section heading ${describe(h2)} is nearly as large as the page heading`);

  // No dead end: the page's content offers at least one way on.
  const main = document.querySelector("main");
  const ways = main ? Array.from(main.querySelectorAll("a[href], button:not([disabled])")).filter(visible) : [];
  if (ways.length === 0) problems.push("dead end: no link or button in the page's content");

  // Japanese and Korean: a line may not break inside a word. Korean words are runs of Hangul between spaces;
  // in Japanese a run of katakana (ログイン, アカウント) or of kanji (作成, 登録) is one word.
  const inWord =
    language === "ko"
      ? /^\p{Script=Hangul}{2}$/u
      : language === "ja"
        ? /^(?:[\p{Script=Katakana}ー]{2}|\p{Script=Han}{2})$/u
        : undefined;
  if (inWord) {
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? "";
      if (!text.trim() || !node.parentElement || !visible(node.parentElement)) continue;
      let previous: { top: number; char: string } | undefined;
      for (let k = 0; k < text.length; k++) {
        const char = text[k] as string;
        const range = document.createRange();
        range.setStart(node, k);
        range.setEnd(node, k + 1);
        const rect = range.getClientRects()[0];
        if (!rect || /\s/u.test(char)) {
          previous = undefined;
          continue;
        }
        if (previous && rect.top > previous.top + rect.height / 2 && inWord.test(previous.char + char))
          problems.push(`line broken inside a word: "${text.slice(Math.max(0, k - 6), k)}|${text.slice(k, k + 6)}"`);
        previous = { top: rect.top, char };
      }
    }
  }
  return problems;
}
