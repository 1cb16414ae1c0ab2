import { describe, expect, it } from "vitest";
import { signInWithPassword } from "../src/accounts/sign-in.ts";
import { findUserByEmail } from "../src/accounts/users.ts";
import { runAdmin } from "../src/admin/cli.ts";
import { migrate, openDatabase } from "../src/store/db.ts";
import { tempDir } from "./harness.ts";

describe("admin CLI", () => {
  const env = { DATABASE_URL: `sqlite:${tempDir()}/admin.db`, SESSION_SECRET: "s".repeat(32) };
  const run = (...argv: string[]) => runAdmin(argv, env);
  const signIn = async (password: string) => {
    const { db } = openDatabase(env.DATABASE_URL);
    await migrate(db);
    try {
      return await signInWithPassword(db, "cli@example.com", password);
    } finally {
      await db.destroy();
    }
  };

  it("prints usage without a command and fails on an unknown one", async () => {
    expect(await run()).toMatchObject({ code: 0, out: expect.stringContaining("user:create") });
    expect((await run("user:explode")).code).toBe(2);
    expect((await run("user:create", "--bogus")).code).toBe(2);
  });

  it("ends every message with one newline and puts each refusal on its own line (issue #25)", async () => {
    const refused = await run("user:create", "--email", "not-an-address", "--password", "password");
    expect(refused.code).toBe(1);
    expect(refused.out.endsWith("\n") && !refused.out.endsWith("\n\n")).toBe(true);
    expect(refused.out.trimEnd().split("\n")).toEqual([
      "email: Please enter valid email address.",
      expect.stringMatching(/^password: This password is too common/u),
    ]);
    for (const argv of [[], ["user:explode"], ["user:create", "--bogus"], ["audit"]]) {
      expect((await run(...argv)).out).toMatch(/[^\n]\n$/u);
    }
  });

  it("creates a user who can sign in", async () => {
    const created = await run(
      "user:create",
      "--email",
      "cli@example.com",
      "--password",
      "correct horse",
      "--first",
      "Cli",
      "--last",
      "User",
      "--country",
      "de",
    );
    expect(created).toMatchObject({ code: 0, out: expect.stringContaining("created cli@example.com") });
    expect((await signIn("correct horse")).ok).toBe(true);
  });

  it("refuses a duplicate, a weak password and missing flags with clear messages", async () => {
    expect(await run("user:create", "--email", "CLI@example.com", "--password", "correct horse")).toEqual({
      code: 1,
      out: "This email address is already connected to an account.\n",
    });
    expect(await run("user:create", "--email", "x@example.com", "--password", "short")).toEqual({
      code: 1,
      out: "password: Your password must be at least 8 characters long.\n",
    });
    expect(await run("user:disable")).toEqual({ code: 1, out: "--email is required\n" });
    expect(await run("user:disable", "--email", "nobody@example.com")).toEqual({
      code: 1,
      out: "no account with the address nobody@example.com\n",
    });
  });

  it("disables, enables, unlocks and deletes", async () => {
    expect((await run("user:disable", "--email", "cli@example.com")).code).toBe(0);
    expect(await signIn("correct horse")).toMatchObject({ ok: false, refusal: "user_disabled" });
    expect((await run("user:enable", "--email", "cli@example.com")).code).toBe(0);
    expect((await signIn("correct horse")).ok).toBe(true);
    for (let i = 0; i < 5; i++) await signIn("wrong password");
    expect(await signIn("correct horse")).toMatchObject({ ok: false, refusal: "user_temporarily_blocked" });
    expect((await run("user:unlock", "--email", "cli@example.com")).code).toBe(0);
    expect((await signIn("correct horse")).ok).toBe(true);
    expect((await run("user:delete", "--email", "cli@example.com")).code).toBe(0);
    expect(await signIn("correct horse")).toMatchObject({ ok: false, refusal: "invalid_authentication" });
  });

  it("creates a pending account with --inactive", async () => {
    await run("user:create", "--email", "later@example.com", "--password", "correct horse", "--inactive");
    const { db } = openDatabase(env.DATABASE_URL);
    try {
      expect(await signInWithPassword(db, "later@example.com", "correct horse")).toMatchObject({
        ok: false,
        refusal: "user_not_active",
      });
    } finally {
      await db.destroy();
    }
  });

  it("reports a bad configuration", async () => {
    expect(await runAdmin(["user:disable", "--email", "a@b.co"], { DATABASE_URL: "mysql://nope" })).toMatchObject({
      code: 1,
      out: expect.stringContaining("DATABASE_URL"),
    });
  });
});

describe("admin user:invite", () => {
  const env = { DATABASE_URL: `sqlite:${tempDir()}/invite.db`, SESSION_SECRET: "s".repeat(32), NODE_ENV: "test" };
  const run = (...argv: string[]) => runAdmin(argv, env);

  it("mails the set-up link on the --brand's host, in the --language, and the account is that brand's", async () => {
    const invited = await run(
      "user:invite",
      "--email",
      "enscape@example.com",
      "--brand",
      "archviz",
      "--language",
      "jp",
    );
    expect(invited.code).toBe(0);
    const listed = await run("mail:list", "--email", "enscape@example.com");
    expect(listed.out).toContain("Enscape アカウントを設定してください");
    expect(listed.out).toMatch(/http:\/\/archviz\.localhost:8080\/account\/password-setup\?code=[\w-]{43}&lang=jp/u);
    const { db } = openDatabase(env.DATABASE_URL);
    try {
      expect(await findUserByEmail(db, "enscape@example.com")).toMatchObject({ brand: "archviz", language: "jp" });
    } finally {
      await db.destroy();
    }
  });

  it("uses the brands file's default brand and English without flags, and refuses unknown ones", async () => {
    expect((await run("user:invite", "--email", "plain@example.com")).code).toBe(0);
    expect((await run("mail:list", "--email", "plain@example.com")).out).toMatch(
      /http:\/\/localhost:8080\/account\/password-setup\?code=[\w-]{43}&lang=en/u,
    );
    expect(await run("user:invite", "--email", "x@example.com", "--brand", "acme")).toMatchObject({
      code: 1,
      out: expect.stringContaining("unknown brand acme"),
    });
    expect(await run("user:invite", "--email", "x@example.com", "--language", "xx")).toMatchObject({
      code: 1,
      out: expect.stringContaining("unknown language xx"),
    });
  });
});

describe("admin mail:list", () => {
  it("lists the dev mailbox with each mail's link", async () => {
    const { buildApp } = await import("../src/app.ts");
    const { loadConfig } = await import("../src/config.ts");
    const { Client } = await import("./harness.ts");
    const { solveBotCheck } = await import("./pow.ts");
    const dir = tempDir();
    const env = {
      DATABASE_URL: `sqlite:${dir}/mail.db`,
      SESSION_SECRET: "s".repeat(32),
      NODE_ENV: "test",
      LOG_LEVEL: "silent",
      WEB_DIST: dir,
    };
    const app = await buildApp(loadConfig(env), { logger: false });
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      const address = app.server.address() as { port: number };
      const client = await new Client(`http://127.0.0.1:${address.port}`).start();
      const body = {
        email: "mailbox@example.com",
        password: "Tr0ub4dor&3x",
        firstName: "M",
        lastName: "B",
        countryCode: "DE",
      };
      expect(
        (await client.post("/api/account/register", { ...body, botCheck: await solveBotCheck(client) })).status,
      ).toBe(200);
      await app.services.mail.runOnce();
      const listed = await runAdmin(["mail:list", "--email", "mailbox@example.com"], env);
      expect(listed.code).toBe(0);
      expect(listed.out).toMatch(/sent\s+mailbox@example\.com\s+Activate your Gatehouse account/u);
      expect(listed.out).toMatch(/http:\/\/localhost:8080\/account\/activate\?code=[\w-]{43}/u);
      expect((await runAdmin(["mail:list", "--email", "nobody@example.com"], env)).out).toBe("no mail\n");
    } finally {
      await app.close();
    }
  });
});
