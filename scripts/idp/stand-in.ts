/**
 * The stand-in identity provider (issue #11): one `oidc-provider` per tenant, each under its own path on one
 * loopback HTTP server, standing in for Google, Facebook, Trimble Identity and a company's provider (Acme, whose
 * people have addresses at acme.example). A developer tries every path with it (`npm run idp`), and the tests sign
 * in through it as a browser would. It is a real authorization server: discovery, signed ID tokens, PKCE, the `iss`
 * of RFC 9207, userinfo; Facebook's tenant speaks plain OAuth 2.0 and answers a Graph-like `/me`.
 *
 * Its sign-in page asks who signs in (no passwords: anyone may be anyone here), and offers to refuse (Cancel, the
 * `access_denied` a person gives) or to fail (`server_error`), so every answer a real provider gives can be tried.
 */
import { createHash, generateKeyPairSync } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import Provider, { type Configuration, interactionPolicy, type KoaContextWithOIDC } from "oidc-provider";

export const TENANTS = ["google", "facebook", "trimble", "acme"] as const;
export type Tenant = (typeof TENANTS)[number];

/** The one client every tenant knows: Gatehouse, with the secret the development providers file names. */
export const STAND_IN_CLIENT = { client_id: "gatehouse", client_secret: "stand-in-secret" } as const;

const TITLES: Record<Tenant, string> = {
  google: "Google",
  facebook: "Facebook",
  trimble: "Trimble Identity",
  acme: "Acme Corporation",
};

export interface StandInIdp {
  /** The server's base address, e.g. http://127.0.0.1:8090. */
  url: string;
  /** A tenant's issuer: its base address and its path. */
  issuer(tenant: Tenant): string;
  close(): Promise<void>;
}

export interface StandInOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  host?: string;
  /** The origins Gatehouse serves on: each gets `<origin>/api/federation/<tenant>/callback` as a redirect URI. */
  origins: string[];
}

/** Who signed in at a tenant, by subject: what its ID token, userinfo and `/me` say. */
interface Person {
  sub: string;
  email: string;
  email_verified: boolean;
  given_name: string;
  family_name: string;
  name: string;
}

/** The subject a person gets when the form names none: stable for an address at a tenant, as a provider's is. */
export function defaultSubject(tenant: Tenant, email: string): string {
  return createHash("sha256").update(`${tenant}:${email.trim().toLowerCase()}`).digest("hex").slice(0, 24);
}

export async function startStandInIdp(options: StandInOptions): Promise<StandInIdp> {
  const host = options.host ?? "127.0.0.1";
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${host}:${port}`;
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const signingKey = { ...privateKey.export({ format: "jwk" }), kid: "stand-in", alg: "RS256", use: "sig" };

  const tenants = new Map(
    TENANTS.map((tenant) => {
      const people = new Map<string, Person>();
      return [
        tenant,
        { people, provider: tenantProvider(tenant, `${url}/${tenant}`, options.origins, people, signingKey) },
      ];
    }),
  );

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? "/", url).pathname;
    const tenant = TENANTS.find((name) => path === `/${name}` || path.startsWith(`/${name}/`));
    const entry = tenant && tenants.get(tenant);
    if (!tenant || !entry) return send(res, 404, "text/plain", "Not found");
    const rest = path.slice(tenant.length + 1);
    handle(tenant, entry.provider, entry.people, rest, req, res).catch((error: unknown) => {
      send(res, 500, "text/plain", `The stand-in failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  });

  return {
    url,
    issuer: (tenant) => `${url}/${tenant}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(
  tenant: Tenant,
  provider: Provider,
  people: Map<string, Person>,
  rest: string,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const interaction = /^\/interaction\/([\w-]+)$/u.exec(rest);
  if (interaction) {
    if (req.method === "GET") return showSignIn(tenant, provider, req, res);
    if (req.method === "POST") return finishSignIn(tenant, provider, people, await readForm(req), req, res);
    return send(res, 405, "text/plain", "Method not allowed");
  }
  // Facebook's Graph API: `/me?fields=…` with the access token, answering id, name, email, first and last name.
  if (tenant === "facebook" && rest === "/me") return graphMe(provider, people, req, res);
  // Everything else is the provider's own (discovery, auth, token, jwks, userinfo), mounted under the tenant's path:
  // it works out its mount path from `originalUrl`, as under Express.
  const mounted = req as IncomingMessage & { originalUrl?: string };
  mounted.originalUrl = req.url;
  req.url = (req.url ?? "/").slice(tenant.length + 1) || "/";
  provider.callback()(req, res);
}

function tenantProvider(
  tenant: Tenant,
  issuer: string,
  origins: string[],
  people: Map<string, Person>,
  signingKey: object,
): Provider {
  const policy = interactionPolicy.base();
  // `prompt=select_account` (Google's account chooser, social registration's Change link): the same form, where
  // another person can be named; answered together with the login.
  policy.add(new interactionPolicy.Prompt({ name: "select_account", requestable: true }), 0);
  // Every authorization asks who signs in, as a test chooses the person each time; the answer of the form that
  // has just been submitted is the one exception (the resumed authorization would otherwise ask forever).
  policy
    .get("login")
    ?.checks.add(
      new interactionPolicy.Check("stand_in_asks", "the stand-in asks who signs in", (ctx: KoaContextWithOIDC) =>
        ctx.oidc.result?.login ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT,
      ),
    );
  const configuration: Configuration = {
    clients: [
      {
        ...STAND_IN_CLIENT,
        redirect_uris: origins.map((origin) => `${origin}/api/federation/${tenant}/callback`),
        grant_types: ["authorization_code"],
        response_types: ["code"],
        // openid-client sends the secret in the body when it has one (client_secret_post).
        token_endpoint_auth_method: "client_secret_post",
      },
    ],
    jwks: { keys: [signingKey] },
    cookies: {
      keys: [`stand-in ${tenant} cookie key`],
      // Every tenant on one host and port: their cookies must not meet (nor Gatehouse's on the same loopback host).
      names: {
        session: `stand_in_${tenant}_session`,
        interaction: `stand_in_${tenant}_interaction`,
        resume: `stand_in_${tenant}_resume`,
      },
    },
    claims: {
      // `amr` (RFC 8176): how the person signed in here, as a company's provider reports its own MFA (issue #26).
      openid: ["sub", "amr"],
      email: ["email", "email_verified"],
      profile: ["name", "given_name", "family_name"],
    },
    scopes: tenant === "facebook" ? ["email", "public_profile"] : ["openid", "email", "profile"],
    // Google and the company put the profile in the ID token; Trimble only in userinfo, as the real one does, so
    // the relying party's userinfo path is exercised too.
    conformIdTokenClaims: tenant === "trimble",
    findAccount: (_ctx, sub) => {
      const person = people.get(sub);
      return person ? { accountId: sub, claims: () => ({ ...person }) } : undefined;
    },
    // Consent is taken as given: the stand-in's people agree to everything Gatehouse asks.
    loadExistingGrant: async (ctx) => {
      const { client, session } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope([...ctx.oidc.requestParamScopes].join(" "));
      grant.addOIDCClaims([...ctx.oidc.requestParamClaims]);
      await grant.save();
      return grant;
    },
    interactions: { policy, url: (_ctx, interaction) => `/${tenant}/interaction/${interaction.uid}` },
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, AuthorizationCode: 60, IdToken: 600 },
    features: { devInteractions: { enabled: false }, userinfo: { enabled: true } },
  };
  return new Provider(issuer, configuration);
}

const html = (value: string) =>
  value.replace(/[&<>"']/gu, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c);

async function showSignIn(tenant: Tenant, provider: Provider, req: IncomingMessage, res: ServerResponse) {
  const details = await provider.interactionDetails(req, res);
  const hint = typeof details.params.login_hint === "string" ? details.params.login_hint : "";
  const title = TITLES[tenant];
  const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in to ${html(title)} (stand-in)</title>
<style>
body { font: 16px/1.5 system-ui, sans-serif; max-width: 28rem; margin: 2rem auto; padding: 0 1rem; color: #1b1b1b; }
label { display: block; margin-top: 1rem; }
input[type=email], input[type=text] { display: block; width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; }
.check { display: flex; gap: .5rem; align-items: center; }
.buttons { display: flex; gap: .5rem; margin-top: 1.5rem; flex-wrap: wrap; }
button { font: inherit; padding: .5rem 1rem; }
p { color: #444; }
</style>
</head>
<body>
<main>
<h1>Sign in to ${html(title)}</h1>
<p>This is the development stand-in of ${html(title)}: say who you are; no password is asked.</p>
<form method="post" action="/${tenant}/interaction/${html(details.uid)}">
<label>Email <input type="email" name="email" autocomplete="email" value="${html(hint)}"></label>
<label>First name <input type="text" name="given_name" autocomplete="given-name"></label>
<label>Last name <input type="text" name="family_name" autocomplete="family-name"></label>
<label class="check"><input type="checkbox" name="email_verified" value="true" checked> Email verified</label>
<label>Subject <input type="text" name="sub" aria-describedby="sub-help"></label>
<p id="sub-help">Leave it empty for the subject this address always gets here.</p>
<label>Authentication methods <input type="text" name="amr" value="pwd" aria-describedby="amr-help"></label>
<p id="amr-help">The ID token's amr (RFC 8176), space-separated: "pwd otp mfa" for a sign-in with a second factor.</p>
<div class="buttons">
<button type="submit" name="action" value="sign-in">Sign in</button>
<button type="submit" name="action" value="cancel" formnovalidate>Cancel</button>
<button type="submit" name="action" value="fail" formnovalidate>Fail</button>
</div>
</form>
</main>
</body>
</html>`;
  res.setHeader("cache-control", "no-store");
  send(res, 200, "text/html; charset=utf-8", page);
}

async function finishSignIn(
  tenant: Tenant,
  provider: Provider,
  people: Map<string, Person>,
  form: URLSearchParams,
  req: IncomingMessage,
  res: ServerResponse,
) {
  const action = form.get("action");
  if (action === "cancel") {
    return provider.interactionFinished(req, res, {
      error: "access_denied",
      error_description: "The person cancelled the sign-in",
    });
  }
  if (action === "fail") {
    return provider.interactionFinished(req, res, {
      error: "server_error",
      error_description: "The stand-in was asked to fail",
    });
  }
  const email = (form.get("email") ?? "").trim();
  const given = (form.get("given_name") ?? "").trim();
  const family = (form.get("family_name") ?? "").trim();
  const sub = (form.get("sub") ?? "").trim() || defaultSubject(tenant, email);
  people.set(sub, {
    sub,
    email,
    email_verified: form.get("email_verified") === "true",
    given_name: given,
    family_name: family,
    name: `${given} ${family}`.trim(),
  });
  const amr = (form.get("amr") ?? "").split(" ").filter(Boolean);
  return provider.interactionFinished(
    req,
    res,
    { select_account: {}, login: { accountId: sub, ...(amr.length > 0 ? { amr } : {}) } },
    { mergeWithLastSubmission: false },
  );
}

/** Facebook's `GET /me?fields=…` (Graph API) with the access token as a Bearer header or `access_token`. */
async function graphMe(provider: Provider, people: Map<string, Person>, req: IncomingMessage, res: ServerResponse) {
  const query = new URL(req.url ?? "/", "http://stand-in").searchParams;
  const bearer = /^Bearer (.+)$/iu.exec(req.headers.authorization ?? "")?.[1] ?? query.get("access_token");
  const token = bearer ? await provider.AccessToken.find(bearer) : undefined;
  const person = token?.accountId ? people.get(token.accountId) : undefined;
  if (!token || token.isExpired || !person) {
    const error = { error: { message: "Invalid OAuth access token.", type: "OAuthException", code: 190 } };
    return send(res, 401, "application/json", JSON.stringify(error));
  }
  const all: Record<string, string> = {
    id: person.sub,
    name: person.name,
    first_name: person.given_name,
    last_name: person.family_name,
    email: person.email,
  };
  const fields = (query.get("fields") ?? "id,name").split(",");
  const answer = Object.fromEntries(Object.entries(all).filter(([field, value]) => fields.includes(field) && value));
  send(res, 200, "application/json", JSON.stringify({ id: person.sub, ...answer }));
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

function send(res: ServerResponse, status: number, type: string, body: string) {
  res.statusCode = status;
  res.setHeader("content-type", type);
  res.end(body);
}
