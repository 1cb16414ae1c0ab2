import { describe, expect, it } from "vitest";
import { standInProvidersFile } from "../packages/server/test/idps.ts";
import { linkIn } from "../packages/server/test/smtp.ts";
import { signInAtStandIn } from "../scripts/idp/sign-in.ts";
import { startStandInIdp } from "../scripts/idp/stand-in.ts";
import { atProvider, useFederation } from "./federation-fixture.ts";
import { BUTTON, completeProfile, federationPages, PASSWORD, sessionEmail, TO_PROFILE } from "./federation-pages.ts";
import { startService } from "./global.ts";
import { adminOn, uniqueEmail, visit } from "./support.ts";

/**
 * Issue #11 in Chromium: social and corporate sign-in through the stand-in identity provider, each journey from the
 * sign-in page to where it ends (the screens in every brand and by keyboard: federation-screens.e2e.ts).
 */
const fx = useFederation();
const { open, person, signInWith } = federationPages(fx);

describe("social sign-in: a new person", () => {
  it("registers with Google: the provider's details, then signed in and sent on after 3 s", async () => {
    const email = uniqueEmail("google.new");
    const { page, context } = await open(TO_PROFILE);
    await signInWith(page, "google", { email, firstName: "Grace", lastName: "Hopper" });
    await page.getByRole("heading", { name: "Create account", level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/register/social");
    expect(await page.title()).toBe("Sign up | Gatehouse");
    await page.getByText("We will use the details of your Google account for your Gatehouse account.").waitFor();
    await page.getByText("Grace Hopper").waitFor();
    expect(await page.getByLabel("First name").inputValue()).toBe("Grace");
    expect(await page.getByLabel("Last name").inputValue()).toBe("Hopper");
    await completeProfile(page);

    await page.getByRole("heading", { name: "Account created" }).waitFor();
    expect(new URL(page.url()).search).toBe("");
    await page.getByText(`Your Gatehouse account for ${email} is ready.`).waitFor();
    expect(await sessionEmail(page)).toBe(email);
    // Spec §4: on by itself after 3 s, to the return address.
    const shown = Date.now();
    await page.getByRole("heading", { name: "Edit account" }).waitFor({ timeout: 10_000 });
    expect(Date.now() - shown).toBeGreaterThan(2_000);
    // Edit account lists Google without Remove: it is this account's only way in, and says so (issue #25).
    const linked = page.getByRole("region", { name: "Linked sign-in methods" });
    await linked.getByText(email).waitFor();
    await linked.getByText("Google is your only way to sign in, so it cannot be removed.", { exact: false }).waitFor();
    expect(await linked.getByRole("button", { name: "Remove Google" }).count()).toBe(0);
    await context.close();

    // The same person comes back: signed in at once.
    const again = await open("/");
    await signInWith(again.page, "google", { email });
    await again.page.getByRole("heading", { name: "Edit account" }).waitFor();
    expect(await sessionEmail(again.page)).toBe(email);
    await again.context.close();
  });

  it("registers with Facebook, whose address is not vouched for: activation by mail first", async () => {
    const email = uniqueEmail("facebook.new");
    const { page, context } = await open("/");
    await signInWith(page, "facebook", { email, firstName: "Ada", lastName: "Lovelace" });
    await page.getByText("We will use the details of your Facebook account").waitFor();
    // Only Google has the account chooser behind Change.
    expect(await page.getByRole("button", { name: "Change Facebook account" }).count()).toBe(0);
    await completeProfile(page);
    await page.getByRole("heading", { name: "Account created" }).waitFor();
    await page.getByText(`please activate your account with the link we sent to ${email}`).waitFor();
    expect(await sessionEmail(page)).toBeUndefined();
    const mail = await fx.smtp.waitFor(email);
    // No automatic redirect away from the instructions: OK leads to sign-in. (Waiting out spec §4's 3 s is the
    // point here: an absence cannot be waited for as a condition.)
    expect(await page.getByText("Taking you on in a few seconds...").count()).toBe(0);
    await page.waitForTimeout(3_500);
    expect(new URL(page.url()).pathname).toBe("/register/social/complete");
    await page.getByRole("button", { name: "OK" }).click();
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();

    // Before activating, Facebook's sign-in says so; after it, Facebook signs in.
    await signInWith(page, "facebook", { email });
    await page.getByRole("heading", { name: "Account not active" }).waitFor();
    await page.goto(linkIn(mail, "/account/activate").href);
    await page.getByRole("heading", { name: "Your account is active" }).waitFor();
    await page.goto("/");
    await signInWith(page, "facebook", { email });
    await page.waitForURL((url) => url.pathname === "/profile/edit");
    expect(await sessionEmail(page)).toBe(email);
    await context.close();
  });

  it("registers with Trimble and signs in with it again", async () => {
    const email = uniqueEmail("trimble.new");
    const { page, context } = await open("/");
    await signInWith(page, "trimble", { email, firstName: "Tim", lastName: "Ble" });
    await page.getByText("We will use the details of your Trimble account").waitFor();
    await completeProfile(page);
    await page.getByRole("heading", { name: "Account created" }).waitFor();
    // OK goes on at once, without waiting for the timer.
    await page.getByRole("button", { name: "OK" }).click();
    await page.waitForURL((url) => !url.pathname.startsWith("/register"));
    expect(await sessionEmail(page)).toBe(email);
    await context.close();
    const again = await open("/");
    await signInWith(again.page, "trimble", { email });
    await again.page.waitForURL((url) => url.pathname === "/profile/edit");
    await again.context.close();
  });

  it("Google's Change asks Google for its account chooser (prompt=select_account)", async () => {
    const { page, context } = await open("/register");
    await page.getByRole("button", { name: "Sign up with Google" }).click();
    await atProvider(page, fx.idp, { email: uniqueEmail("first.choice") });
    await page.getByRole("heading", { name: "Create account", level: 1 }).waitFor();
    const chooser = page.waitForRequest((r) => r.url().startsWith(fx.idp.issuer("google")));
    await page.getByRole("button", { name: "Change Google account" }).click();
    expect(new URL((await chooser).url()).searchParams.get("prompt")).toBe("select_account");
    // The chooser's answer replaces the waiting sign-in: the form now shows the other account.
    const other = uniqueEmail("second.choice");
    await atProvider(page, fx.idp, { email: other, firstName: "Noor" });
    await page.getByText(other).waitFor();
    expect(await page.getByLabel("First name").inputValue()).toBe("Noor");
    await context.close();
  });

  it("a registration page without a waiting sign-in says it expired, whatever its address says", async () => {
    const { page, context } = await open("/register/social?platform=google&email=someone%40example.com&firstName=X");
    await page.getByRole("heading", { name: "Sign-in expired" }).waitFor();
    await page.getByRole("link", { name: "Back to sign in" }).click();
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    await context.close();
  });
});

describe("social sign-in: an address that belongs to an account", () => {
  it("links after the account's password (a wrong one refused), then Google alone signs in; Edit account removes it", async () => {
    const email = uniqueEmail("link");
    await person(email);
    const { page, context } = await open(TO_PROFILE);
    await signInWith(page, "google", { email });
    await page.getByRole("heading", { name: "Link your accounts" }).waitFor();
    expect(await page.title()).toBe("Link account | Gatehouse");
    expect(await page.getByLabel("Email").inputValue()).toBe(email);
    expect(await page.getByLabel("Email").getAttribute("readonly")).not.toBeNull();
    await page.getByLabel("Gatehouse password").fill("Wrong-Password-1");
    await page.getByRole("button", { name: "LINK ACCOUNTS" }).click();
    await page.getByText("Incorrect email or password.").waitFor();
    await page.getByLabel("Gatehouse password").fill(PASSWORD);
    await page.getByRole("button", { name: "LINK ACCOUNTS" }).click();
    await page.getByRole("heading", { name: "Edit account" }).waitFor();
    expect(await sessionEmail(page)).toBe(email);
    await context.close();

    const again = await open("/");
    await signInWith(again.page, "google", { email });
    await again.page.getByRole("heading", { name: "Edit account" }).waitFor();
    const linked = again.page.getByRole("region", { name: "Linked sign-in methods" });
    await linked.getByRole("button", { name: "Remove Google" }).click();
    await linked.getByText("Google was removed. You can no longer sign in with it.").waitFor();
    expect(await linked.getByRole("button", { name: "Remove Google" }).count()).toBe(0);
    // Without the link, the address is an existing account's again: linking is offered anew.
    const third = await open("/");
    await signInWith(third.page, "google", { email });
    await third.page.getByRole("heading", { name: "Link your accounts" }).waitFor();
    await third.context.close();
    await again.context.close();
  });

  it("Back on the link screen returns to the page before it, and Forgot your password? leads to recovery", async () => {
    const email = uniqueEmail("link.back");
    await person(email);
    const { page, context } = await open("/");
    await signInWith(page, "google", { email });
    await page.getByRole("heading", { name: "Link your accounts" }).waitFor();
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByRole("heading", { name: "Forgot your password?" }).waitFor();
    await page.goBack();
    await page.getByRole("heading", { name: "Link your accounts" }).waitFor();
    await page.getByRole("button", { name: "Back" }).click();
    await page.waitForURL((url) => url.pathname !== "/link/existing/social");
    await context.close();
  });

  it("offers no linking when the provider does not vouch for the address (Google unverified, Facebook)", async () => {
    const email = uniqueEmail("unverified");
    await person(email);
    for (const [platform, who] of [
      ["google", { email, verified: false }],
      ["facebook", { email }],
    ] as const) {
      const { page, context } = await open("/");
      await signInWith(page, platform, who);
      await page.getByRole("heading", { name: "Account already exists" }).waitFor();
      await page.getByText("An account with this email already exists. Please sign in with your email").waitFor();
      expect(new URL(page.url()).pathname).toBe("/error");
      expect(await page.getByText(/^Ref: [0-9a-f-]{36}$/u).count()).toBe(1);
      // A link screen opened by hand has nothing to link.
      await page.goto(`/link/existing/social?email=${encodeURIComponent(email)}`);
      await page.getByRole("heading", { name: "Sign-in expired" }).waitFor();
      await context.close();
    }
  });

  it("refuses a disabled account on the error page", async () => {
    const email = uniqueEmail("disabled");
    await person(email);
    await adminOn(fx.service.databaseUrl, "user:disable", "--email", email);
    const { page, context } = await open("/");
    await signInWith(page, "google", { email });
    await page.getByRole("heading", { name: "Account disabled" }).waitFor();
    await page.getByText("Your user has been disabled in our system.").waitFor();
    expect(await sessionEmail(page)).toBeUndefined();
    await context.close();
  });
});

describe("social sign-in: the provider says no", () => {
  it("Cancel at the provider returns to sign-in with a calm notice, keeping the return address (issue #24 §3)", async () => {
    const { page, context } = await open(TO_PROFILE);
    await signInWith(page, "google", { email: uniqueEmail("cancelled"), button: "Cancel" });
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    const notice = page.getByText(
      "You cancelled the sign-in with Google. Choose another way to sign in, or try again.",
    );
    await notice.waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.getByText(/^Ref: /u).count()).toBe(0);
    expect(new URL(new URL(page.url()).searchParams.get("return_to") ?? "", page.url()).pathname).toBe("/profile/edit");
    expect(await sessionEmail(page)).toBeUndefined();
    await context.close();
  });

  it("Fail at the provider lands on the error page, signed out", async () => {
    const { page, context } = await open("/");
    await signInWith(page, "google", { email: uniqueEmail("refused"), button: "Fail" });
    await page.getByRole("heading", { name: "Sign-in failed" }).waitFor();
    await page.getByText("An error has occurred during authentication. Try to sign in again.").waitFor();
    expect(await sessionEmail(page)).toBeUndefined();
    await page.getByRole("link", { name: "Back to sign in" }).click();
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    await context.close();
  });

  it("a tampered state, or the answer opened in another browser, signs nobody in; the untouched answer still works", async () => {
    const { page, context } = await open("/");
    // The provider's answer to this browser's request, obtained beside the browser, as an attacker who got hold of
    // it would have it (the stand-in's own form, submitted over HTTP).
    const authorization = page.waitForRequest((r) => r.url().startsWith(fx.idp.issuer("google")));
    await page.getByRole("button", { name: BUTTON.google }).click();
    const answer = (await signInAtStandIn((await authorization).url(), { email: uniqueEmail("tampered") })).href;
    // The browser's own trip ends on the provider's form first: a redirect still under way would cut the next goto.
    await page.getByLabel("Email", { exact: true }).waitFor();

    const tampered = new URL(answer);
    tampered.searchParams.set("state", `${tampered.searchParams.get("state")?.slice(0, -2)}xx`);
    await page.goto(tampered.href);
    await page.getByRole("heading", { name: "Authentication failed" }).waitFor();
    expect(await sessionEmail(page)).toBeUndefined();

    const stranger = await open("/");
    await stranger.page.goto(answer);
    await stranger.page.getByRole("heading", { name: "Authentication failed" }).waitFor();
    expect(await sessionEmail(stranger.page)).toBeUndefined();
    await stranger.context.close();

    await page.goto(answer);
    await page.getByRole("heading", { name: "Create account", level: 1 }).waitFor();
    await context.close();
  });

  it("a provider that cannot be reached (422) reloads the page (spec §4)", async () => {
    const idp = await startStandInIdp({ origins: [] });
    const file = standInProvidersFile(idp);
    await idp.close(); // Its address now answers nothing.
    const offline = await startService({ IDPS_FILE: file });
    try {
      const { page, context } = await visit(fx.browser, "/", {}, offline.baseUrl);
      await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
      const refused = page.waitForResponse((r) => r.url().endsWith("/api/account/social/login"));
      const reloaded = page.waitForEvent("load");
      await page.getByRole("button", { name: "Sign in with Google" }).click();
      expect((await refused).status()).toBe(422);
      await reloaded;
      await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
      expect(await page.getByRole("alert").count()).toBe(0);
      await context.close();
    } finally {
      await offline.stop();
    }
  });
});

describe("corporate sign-in", () => {
  it("address → the company's sign-in with it as login hint → an account made just in time → the profile step", async () => {
    const email = uniqueEmail("joan").replace("@example.com", "@acme.example");
    const { page, context } = await open("/");
    await page.getByRole("link", { name: "Sign in with corporate email" }).click();
    await page.getByRole("heading", { name: "Corporate sign-in", level: 1 }).waitFor();
    expect(await page.title()).toBe("Corporate sign-in | Gatehouse");
    await page.getByLabel("Corporate email").fill(email);
    await page.getByLabel("Corporate email").press("Enter");
    const hint = await atProvider(page, fx.idp, { firstName: "Joan", lastName: "Clarke" });
    expect(hint).toBe(email);
    // No country from the company: the profile step says why it asks (issue #24 §3), before any session opens.
    await page.getByRole("heading", { name: "Edit account" }).waitFor();
    await page.getByText("Your account has no country yet. Select your country and save to continue.").waitFor();
    expect(await sessionEmail(page)).toBeUndefined();
    expect(await page.getByLabel("First name").inputValue()).toBe("Joan");
    const country = page.getByRole("combobox", { name: "Country" });
    expect(await country.locator("option:checked").textContent()).toBe("Select your country");
    await country.selectOption("GB");
    await page.getByRole("button", { name: "Save changes" }).click();
    // Saved, the sign-in is finished and goes on where it was going: the account page (this host's landing).
    await page
      .getByRole("region", { name: "Linked sign-in methods" })
      .getByText("Acme Corporation", { exact: true })
      .waitFor();
    expect(await sessionEmail(page)).toBe(email);
    expect(await page.getByText("Your account has no country yet.", { exact: false }).count()).toBe(0);
    await context.close();
  });

  it("an address whose domain has no company provider gets the spec's message on the field", async () => {
    const { page, context } = await open("/corporate_login");
    await page.getByLabel("Corporate email").fill("ann@nowhere.example");
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByText("We cannot find a corporate account with that email.").waitFor();
    expect(await page.getByLabel("Corporate email").getAttribute("aria-invalid")).toBe("true");
    // The login e-mail's own rule first (spec §5).
    await page.getByLabel("Corporate email").fill("");
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByText("Please enter your username or email address.").waitFor();
    await context.close();
  });

  it("Cancel at the company's provider returns to the corporate page with a calm notice (issue #24 §3)", async () => {
    const email = uniqueEmail("cancel").replace("@example.com", "@acme.example");
    const { page, context } = await open("/corporate_login");
    await page.getByLabel("Corporate email").fill(email);
    await page.getByRole("button", { name: "Next" }).click();
    await atProvider(page, fx.idp, { button: "Cancel" });
    await page.getByRole("heading", { name: "Corporate sign-in", level: 1 }).waitFor();
    await page
      .getByText("You cancelled the sign-in with your company. Enter your corporate email to try again.")
      .waitFor();
    expect(await page.getByText(/^Ref: /u).count()).toBe(0);
    await context.close();
  });

  it("the company refusing lands on the corporate error page, with Try again", async () => {
    const email = uniqueEmail("refused").replace("@example.com", "@acme.example");
    const { page, context } = await open("/corporate_login");
    await page.getByLabel("Corporate email").fill(email);
    await page.getByRole("button", { name: "Next" }).click();
    await atProvider(page, fx.idp, { button: "Fail" });
    await page.getByRole("heading", { name: "Corporate sign-in failed" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/corporate_login/error");
    expect(await page.title()).toBe("Sign-in failed | Gatehouse");
    await page.getByText(/^Ref: [0-9a-f-]{36}$/u).waitFor();
    await page.getByRole("link", { name: "Try again" }).click();
    await page.getByRole("heading", { name: "Corporate sign-in", level: 1 }).waitFor();
    await context.close();
  });

  it("registration's corporate hint and button lead to the corporate screen, and its Back returns", async () => {
    const { page, context } = await open("/register");
    await page.getByLabel("Email").fill("someone@acme.example");
    await page.getByLabel("Password", { exact: true }).focus();
    await page.getByText("Using a corporate account?").waitFor();
    await page.getByRole("link", { name: "Continue with corporate email" }).click();
    await page.getByRole("heading", { name: "Corporate sign-in", level: 1 }).waitFor();
    await page.getByRole("link", { name: "Back" }).click();
    await page.getByRole("heading", { name: "Create account", level: 1 }).waitFor();
    await page.getByRole("link", { name: "Sign up with corporate email" }).click();
    await page.getByRole("heading", { name: "Corporate sign-in", level: 1 }).waitFor();
    await context.close();
  });
});

describe("the sign-in page", () => {
  it("signs in with a password as before, next to the providers' buttons", async () => {
    const email = uniqueEmail("password");
    await person(email);
    const { page, context } = await open("/");
    for (const label of Object.values(BUTTON)) await page.getByRole("button", { name: label }).waitFor();
    await page.getByLabel("Username or email").fill(email);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    const answer = page.waitForResponse((r) => r.url().endsWith("/api/account/login"));
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    expect((await answer).status()).toBe(200);
    // No return address: this host's landing, the account page (the development brands file's localhost).
    await page.getByRole("heading", { name: "Edit account" }).waitFor();
    await context.close();
  });
});
