/** The methods of the ALTCHA widget element the bot check calls. */
export interface MountedWidget {
  configure(options: Record<string, unknown>): void;
  reset(): void;
}

/** How long to wait for the widget's methods: its component mounts a microtask or so after it joins the page. */
const MOUNT_WAIT_TRIES = 100;

/**
 * Resolves true once the widget's methods exist, false if they never come. ALTCHA is a Svelte custom element: its
 * methods (`configure`, `reset`) appear only when its component has mounted, which Svelte does a microtask after
 * the element is connected, so an effect that React runs at once after the commit can find them missing (the
 * intermittent registration crash "t.configure is not a function" seen in CI under load).
 */
export async function whenMounted(widget: Partial<MountedWidget>): Promise<boolean> {
  for (let tries = 0; tries < MOUNT_WAIT_TRIES; tries++) {
    if (typeof widget.configure === "function") return true;
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
  return false;
}
