import { describe, expect, it } from "vitest";
import { type MountedWidget, whenMounted } from "../src/screens/register/widget.ts";

describe("the bot check's widget", () => {
  it("waits for the widget's methods when its component mounts after the element joins the page", async () => {
    const widget: Partial<MountedWidget> = {};
    // As Svelte does: the component (and its methods) arrive after the element is on the page.
    setTimeout(() => {
      widget.configure = () => undefined;
      widget.reset = () => undefined;
    }, 5);
    expect(typeof widget.configure).toBe("undefined");
    expect(await whenMounted(widget)).toBe(true);
    expect(typeof widget.configure).toBe("function");
  });

  it("answers at once for a mounted widget, and gives up on one that never mounts", async () => {
    expect(await whenMounted({ configure: () => undefined, reset: () => undefined })).toBe(true);
    expect(await whenMounted({})).toBe(false);
  });
});
