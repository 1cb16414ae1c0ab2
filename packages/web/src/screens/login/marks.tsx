import type { ReactNode } from "react";
import type { Platform } from "./social.ts";

/**
 * The providers' marks (issue #25), drawn from our own bundle so no button asks a third party for an image (and
 * no request tells a provider who opened the page). Decorative: the button's text names the provider.
 * Google: the standard "G" in its four colours (Sign in with Google branding guidelines). Facebook: the "f" in
 * its blue circle (Meta's brand resource centre). Trimble: the company's globe in Trimble Blue.
 */
export function ProviderMark({ platform }: { platform: Platform }) {
  return (
    <svg viewBox="0 0 48 48" width="20" height="20" aria-hidden="true" focusable="false" data-mark={platform}>
      {PATHS[platform]}
    </svg>
  );
}

const PATHS: Record<Platform, ReactNode> = {
  google: (
    <>
      <path
        fill="#EA4335"
        d="M24 9.5c3.54 0 6.71 1.22 9.21 3.6l6.85-6.85C35.9 2.38 30.47 0 24 0 14.62 0 6.51 5.38 2.56 13.22l7.98 6.19C12.43 13.72 17.74 9.5 24 9.5z"
      />
      <path
        fill="#4285F4"
        d="M46.98 24.55c0-1.57-.15-3.09-.38-4.55H24v9.02h12.94c-.58 2.96-2.26 5.48-4.78 7.18l7.73 6c4.51-4.18 7.09-10.36 7.09-17.65z"
      />
      <path
        fill="#FBBC05"
        d="M10.53 28.59c-.48-1.45-.76-2.99-.76-4.59s.27-3.14.76-4.59l-7.98-6.19C.92 16.46 0 20.12 0 24c0 3.88.92 7.54 2.56 10.78l7.97-6.19z"
      />
      <path
        fill="#34A853"
        d="M24 48c6.48 0 11.93-2.13 15.89-5.81l-7.73-6c-2.15 1.45-4.92 2.3-8.16 2.3-6.26 0-11.57-4.22-13.47-9.91l-7.98 6.19C6.51 42.62 14.62 48 24 48z"
      />
    </>
  ),
  facebook: (
    <>
      <circle cx="24" cy="24" r="24" fill="#0866FF" />
      <path
        fill="#FFFFFF"
        d="M33.342 31.126l1.064-6.98h-6.656v-4.528c0-1.91.93-3.772 3.912-3.772h3.026V9.904s-2.746-.472-5.372-.472c-5.482 0-9.066 3.342-9.066 9.394v5.32h-6.094v6.98h6.094V48a24.18 24.18 0 0 0 7.5 0V31.126z"
      />
    </>
  ),
  trimble: (
    <g fill="none" stroke="#0063A3" strokeWidth="4">
      <circle cx="24" cy="24" r="21" />
      <ellipse cx="24" cy="24" rx="9" ry="21" />
      <path d="M4 17h40M4 31h40" />
    </g>
  ),
};
