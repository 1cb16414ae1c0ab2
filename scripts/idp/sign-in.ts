/**
 * Signs in at the stand-in identity provider as a browser would, over HTTP: opens the authorization URL, follows the
 * provider's redirects with its cookies, submits its sign-in form, and stops at the first redirect that leaves the
 * provider (the relying party's callback, with its code or error), which is answered without being followed.
 */

export interface StandInPerson {
  email: string;
  firstName?: string;
  lastName?: string;
  /** The provider vouches for the address (default true; Facebook's relying party never believes it). */
  emailVerified?: boolean;
  /** The provider's subject; by default the one the address always gets at that tenant. */
  subject?: string;
  /** The ID token's `amr` (RFC 8176), e.g. ["pwd", "otp", "mfa"]; by default ["pwd"]. */
  amr?: readonly string[];
  /** Sign in (default), refuse (`access_denied`) or fail (`server_error`). */
  action?: "sign-in" | "cancel" | "fail";
}

/** Answers the callback URL the provider sends the browser to. */
export async function signInAtStandIn(authorizationUrl: string, person: StandInPerson): Promise<URL> {
  const provider = new URL(authorizationUrl).origin;
  const cookies = new Map<string, string>();
  const request = async (url: URL, init: RequestInit = {}): Promise<Response> => {
    const headers = new Headers(init.headers);
    if (cookies.size > 0) headers.set("cookie", [...cookies].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const at = pair.indexOf("=");
      if (at > 0) cookies.set(pair.slice(0, at).trim(), pair.slice(at + 1).trim());
    }
    return response;
  };

  let url = new URL(authorizationUrl);
  let submitted = false;
  for (let hops = 0; hops < 20; hops++) {
    if (url.origin !== provider) return url;
    const response = await request(url);
    if (response.status >= 300 && response.status < 400) {
      url = new URL(response.headers.get("location") ?? "", url);
      continue;
    }
    const page = await response.text();
    if (response.status !== 200 || submitted) throw new Error(`the stand-in answered ${response.status}: ${page}`);
    const action = /<form method="post" action="([^"]+)"/u.exec(page)?.[1];
    if (!action) throw new Error(`no sign-in form on the stand-in's page: ${page.slice(0, 300)}`);
    const form = new URLSearchParams({
      action: person.action ?? "sign-in",
      email: person.email,
      given_name: person.firstName ?? "",
      family_name: person.lastName ?? "",
      sub: person.subject ?? "",
      amr: (person.amr ?? ["pwd"]).join(" "),
    });
    if (person.emailVerified ?? true) form.set("email_verified", "true");
    const posted = await request(new URL(action.replaceAll("&amp;", "&"), url), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: form,
    });
    submitted = true;
    if (posted.status < 300 || posted.status >= 400)
      throw new Error(`the stand-in's form answered ${posted.status}: ${await posted.text()}`);
    url = new URL(posted.headers.get("location") ?? "", url);
  }
  throw new Error("the stand-in redirected too many times");
}
