import { BRAND_IDS, BRANDS } from "@gatehouse/contract";
import { describe, expect, it } from "vitest";
import { refuseWritesAt } from "../packages/server/test/refuse-writes.ts";
import { linkIn } from "../packages/server/test/smtp.ts";
import {
  createPerson,
  expectAccessible,
  isFocused,
  screenshot,
  signIn,
  uniqueEmail,
  useMailService,
  visit,
} from "./support.ts";

const fx = useMailService();
const PASSWORD = "Granite-Kettle-58";

async function signedInOnProfile(email: string, query = "") {
  await createPerson(
    { email, password: PASSWORD, first: "Noor", last: "Haddad", country: "NL" },
    fx.service.databaseUrl,
  );
  const { page, context } = await visit(fx.browser, `/profile/edit${query}`, {}, fx.service.baseUrl);
  // Login required: sign in, and come back here.
  await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
  await signIn(page, email, PASSWORD);
  await page.getByRole("heading", { name: "Edit account" }).waitFor();
  await page.getByLabel("First name").waitFor();
  return { page, context };
}

describe("profile", () => {
  it("edits and saves the profile, and it persists", async () => {
    const email = uniqueEmail("edit");
    const { page, context } = await signedInOnProfile(
      email,
      `?return_to=${encodeURIComponent("https://www.gatehouse.example/shop")}`,
    );
    expect(await page.getByLabel("Email").inputValue()).toBe(email);
    expect(await page.getByLabel("Email").getAttribute("readonly")).not.toBeNull();
    await page.getByLabel("First name").fill("Noor Amal");
    await page.getByRole("combobox", { name: "Country" }).selectOption("BE");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Your profile was updated!").waitFor();
    expect(await page.getByRole("link", { name: "Back to www.gatehouse.example" }).getAttribute("href")).toBe(
      "https://www.gatehouse.example/shop",
    );
    await page.reload();
    await page.getByLabel("First name").waitFor();
    expect(await page.getByLabel("First name").inputValue()).toBe("Noor Amal");
    expect(await page.getByRole("combobox", { name: "Country" }).inputValue()).toBe("BE");
    await context.close();
  });

  it("warns Leave page? before leaving with unsaved edits, and stays when the user says no", async () => {
    const email = uniqueEmail("unsaved");
    const { page, context } = await signedInOnProfile(email);
    await page.getByLabel("Last name").fill("Changed");
    const messages: string[] = [];
    page.once("dialog", (dialog) => {
      messages.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole("link", { name: "Change password" }).click();
    expect(messages).toEqual(["Leave page? Changes that you made may not be saved."]);
    expect(new URL(page.url()).pathname).toBe("/profile/edit");
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("link", { name: "Sign out" }).click();
    await page.getByText("You have been signed out.").waitFor();
    await context.close();
  });

  it("keeps unsaved edits across a language switch, and saves them after", async () => {
    const email = uniqueEmail("switch");
    const { page, context } = await signedInOnProfile(email);
    await page.getByLabel("First name").fill("Noor Amal");
    await page.getByLabel("Last name").fill("Haddad-Lind");
    await page.getByRole("combobox", { name: "Country" }).selectOption("BE");
    const language = page.getByRole("combobox", { name: "Language" });
    await language.selectOption("de");
    await page.getByRole("heading", { name: "Konto bearbeiten" }).waitFor();
    // The country names come again in German; the chosen country and the typed names stay.
    await page.getByRole("option", { name: "Belgien" }).waitFor({ state: "attached" });
    expect(await page.getByLabel("Vorname").inputValue()).toBe("Noor Amal");
    expect(await page.getByLabel("Nachname").inputValue()).toBe("Haddad-Lind");
    expect(await page.getByRole("combobox", { name: "Land" }).inputValue()).toBe("BE");
    await page.getByRole("combobox", { name: "Sprache" }).selectOption("en");
    await page.getByRole("heading", { name: "Edit account" }).waitFor();
    expect(await page.getByLabel("First name").inputValue()).toBe("Noor Amal");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Your profile was updated!").waitFor();
    await page.reload();
    await page.getByLabel("Last name").waitFor();
    expect(await page.getByLabel("Last name").inputValue()).toBe("Haddad-Lind");
    await context.close();
  });

  it("keeps the form when a save fails (offline), says so under the button, and saves on retry", async () => {
    const email = uniqueEmail("offline");
    const { page, context } = await signedInOnProfile(email);
    await page.getByLabel("First name").fill("Nadia");
    await page.getByRole("combobox", { name: "Country" }).selectOption("FR");
    await context.setOffline(true);
    await page.getByRole("button", { name: "Save changes" }).click();
    const failure = page.getByRole("alert").filter({ hasText: "Your changes could not be saved." });
    await failure.waitFor();
    await failure.getByText("No Internet connection.", { exact: false }).waitFor();
    // Still the form, with what was typed: no error screen in its place.
    expect(await page.getByRole("heading", { name: "Oops... what a mess." }).count()).toBe(0);
    expect(await page.getByLabel("First name").inputValue()).toBe("Nadia");
    expect(await page.getByRole("combobox", { name: "Country" }).inputValue()).toBe("FR");
    await expectAccessible(page);
    await screenshot(page, "profile-save-failed");
    await context.setOffline(false);
    await failure.getByRole("button", { name: "Try again" }).click();
    await page.getByText("Your profile was updated!").waitFor();
    await page.reload();
    await page.getByLabel("First name").waitFor();
    expect(await page.getByLabel("First name").inputValue()).toBe("Nadia");
    expect(await page.getByRole("combobox", { name: "Country" }).inputValue()).toBe("FR");
    await context.close();
  });

  it("keeps the form when the server fails a save (5xx), with the reference, and saves on retry", async () => {
    const email = uniqueEmail("fivexx");
    const { page, context } = await signedInOnProfile(email);
    await page.getByLabel("Last name").fill("Okafor");
    // A real server failure: the database refuses the save (refuse-writes.ts), so the service answers a 500.
    const release = await refuseWritesAt(fx.service.databaseUrl, { table: "users", event: "update", email });
    try {
      const answer = page.waitForResponse(
        (r) => r.url().endsWith("/api/account/profile") && r.request().method() === "PUT",
      );
      await page.getByRole("button", { name: "Save changes" }).click();
      expect((await answer).status()).toBe(500);
      const failure = page.getByRole("alert").filter({ hasText: "Your changes could not be saved." });
      await failure.waitFor();
      await failure.getByText(/^Ref: [0-9a-f-]{36}$/u).waitFor();
      expect(await page.getByRole("heading", { name: "Oops... what a mess." }).count()).toBe(0);
      expect(await page.getByLabel("Last name").inputValue()).toBe("Okafor");
    } finally {
      await release();
    }
    await page.getByRole("button", { name: "Try again" }).click();
    await page.getByText("Your profile was updated!").waitFor();
    await context.close();
  });

  it("requests deletion with the password, opens the mailed link, deletes, and sign-in fails as for an unknown address", async () => {
    const email = uniqueEmail("delete");
    const { page, context } = await signedInOnProfile(email);
    await page.getByLabel("Password", { exact: true }).fill("not my password");
    await page.getByRole("button", { name: "Delete my account" }).click();
    await page.getByText("Your current password is incorrect.").waitFor();
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByRole("button", { name: "Delete my account" }).click();
    await page.getByText(`We have sent a link to ${email}`).waitFor();

    const link = linkIn(await fx.smtp.waitFor(email), "/account/delete");
    await page.goto(link.pathname + link.search);
    await page.getByText("Do you really want to delete your account").waitFor();
    await page.getByRole("button", { name: "Delete all data" }).click();
    await page.getByText("All data was successfully deleted. We apologize for any inconvenience.").waitFor();
    await expect.poll(() => isFocused(page.getByRole("heading", { name: "Destroy account" }))).toBe(true);
    expect(await page.getByRole("link", { name: "Customer service" }).isVisible()).toBe(true);

    await page.getByRole("link", { name: "Sign in" }).click();
    const answer = await signIn(page, email, PASSWORD);
    expect(answer.status()).toBe(401);
    await page.getByText("Incorrect email or password.").waitFor();
    await context.close();
  });

  it("says Invalid delete account link. without a code, and Something went wrong. on load for an unknown one, each with a way to a new link", async () => {
    const { page, context } = await visit(fx.browser, "/account/delete", {}, fx.service.baseUrl);
    await page.getByText("Invalid delete account link.").waitFor();
    expect(await page.getByRole("link", { name: "Request a new link" }).getAttribute("href")).toBe("/profile/edit");
    await page.goto(`/account/delete?code=${"z".repeat(43)}`);
    // Issue #25: the link's state is known on load; no red button for a link that cannot delete.
    await page.getByText("Something went wrong.").waitFor();
    expect(await page.getByRole("button", { name: "Delete all data" }).count()).toBe(0);
    await page.getByText(/^Ref: [0-9a-f-]{36}$/u).waitFor();
    await page.getByRole("link", { name: "Request a new link" }).click();
    // Deletion is asked for from Edit account, which needs a sign-in first.
    await page.getByRole("heading", { name: "Sign in", level: 1 }).waitFor();
    expect(new URL(page.url()).searchParams.get("return_to")).toContain("/profile/edit");
    await context.close();
  });
});

describe.each(BRAND_IDS)("profile screens in the %s brand", (id) => {
  it("shows Edit account (no customer number field when it is empty) and Destroy account", async () => {
    const email = uniqueEmail(`brand-${id}`);
    await createPerson({ email, password: PASSWORD, first: "B", last: "C", country: "DE" }, fx.service.databaseUrl);
    const { page, context } = await visit(
      fx.browser,
      `/?theme=${id}&return_to=${encodeURIComponent("/profile/edit")}`,
      {},
      fx.service.baseUrl,
    );
    await signIn(page, email, PASSWORD);
    await page.getByRole("heading", { name: "Edit account" }).waitFor();
    await page.getByLabel("First name").waitFor();
    expect(await page.title()).toBe(`Edit account | ${BRANDS[id].name}`);
    expect(await page.getByRole("button", { name: "Save changes" }).isVisible()).toBe(true);
    expect(await page.getByLabel("Customer number").count()).toBe(0);
    await expectAccessible(page);
    await screenshot(page, `profile-${id}`);
    await page.goto(`/account/delete?theme=${id}&code=${"q".repeat(43)}`);
    await page.getByText("This link is not valid. Please request a new one.").waitFor();
    expect(await page.title()).toBe(`Destroy account | ${BRANDS[id].name}`);
    await expectAccessible(page);
    await screenshot(page, `delete-${id}`);
    await context.close();
  });
});
