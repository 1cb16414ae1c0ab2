import type { AnswerOf } from "@gatehouse/contract";
import { securityApi } from "@gatehouse/contract/security";
import { type Ref, useImperativeHandle, useState } from "react";
import { useTranslation } from "react-i18next";
import { gateway } from "../../api/index.ts";
import { useApp } from "../../app/context.tsx";
import { Alert } from "../../ui/Alert.tsx";
import { Button } from "../../ui/Button.tsx";
import { useConfirmedCall } from "../../ui/confirmed.ts";
import { useFocusOnChange } from "../../ui/focus.ts";
import { useT } from "../../ui/useT.ts";
import { Details } from "./Details.tsx";
import { PagedSection } from "./PagedSection.tsx";
import { usePagedList } from "./paged.ts";
import styles from "./Security.module.css";
import { brandName, dateOnly, localeOf } from "./words.ts";

type App = AnswerOf<typeof securityApi.securityApps>["apps"][number];
type Message = { kind: "error" | "success"; text: string };

/** The consent page's words for each scope (serviceLogin.scopes); a scope without words is not shown. */
const SCOPE_WORDS = ["openid", "email", "profile", "trials", "api"] as const;
const shownScopes = (scopes: readonly string[]) =>
  SCOPE_WORDS.filter((scope) => scopes.includes(scope)) as readonly (typeof SCOPE_WORDS)[number][];

const loadApps = async (cursor: string | undefined) => {
  const answer = await gateway().call(securityApi.securityApps, cursor ? { query: { cursor } } : {});
  return { items: answer.apps, nextCursor: answer.nextCursor };
};

/**
 * "Apps with access" (issue #27): the sites and apps the person granted, what each may do in the consent page's
 * words, and Remove access (confirmed first): the grant, its tokens and its provider sessions end on the server.
 */
export function Apps({ onRemoved, ref }: { onRemoved: () => void; ref?: Ref<{ reload: () => void }> }) {
  const { t } = useTranslation();
  const tk = useT();
  const list = usePagedList(loadApps);
  useImperativeHandle(ref, () => ({ reload: list.reload }), [list.reload]);
  const confirmed = useConfirmedCall();
  const [message, setMessage] = useState<Message>();
  // The entry acted on leaves the list with its button: the heading takes the focus, the message just below it.
  const [done, setDone] = useState(0);
  const heading = useFocusOnChange(done);

  const remove = (app: App) => {
    setMessage(undefined);
    return confirmed.run(
      t("securityPage.apps.removeConfirm", { app: app.name }),
      async () => {
        await gateway().call(securityApi.securityAppRevoke, { params: { id: app.id } });
        setMessage({ kind: "success", text: t("securityPage.apps.removed", { app: app.name }) });
        setDone((count) => count + 1);
        list.reload();
        onRemoved();
      },
      (key) => setMessage({ kind: "error", text: tk(key) }),
    );
  };

  return (
    <PagedSection
      heading={t("securityPage.apps.heading")}
      list={list}
      empty={t("securityPage.apps.none")}
      keyOf={(app) => app.id}
      headingRef={heading}
      above={message ? <Alert kind={message.kind}>{message.text}</Alert> : null}
      render={(app) => <AppEntry app={app} busy={confirmed.busy} onRemove={() => void remove(app)} />}
    />
  );
}

/** One app: its name and brand, what it may do, since when and when last used, offline, and Remove access. */
function AppEntry({ app, busy, onRemove }: { app: App; busy: boolean; onRemove: () => void }) {
  const { t, i18n } = useTranslation();
  const { brand } = useApp();
  const locale = localeOf(i18n.language);
  const ofBrand = brandName(app.brand);
  // The api scope names whose services it opens: the app's brand, else the page's.
  const services = ofBrand ?? brand.name;
  return (
    <>
      <span className={styles.about}>
        <span className={styles.name}>
          {app.name}
          {app.offline ? <span className={styles.badge}>{t("securityPage.apps.offline")}</span> : null}
        </span>
        {ofBrand && ofBrand !== app.name ? (
          <span className={styles.details}>{t("securityPage.apps.brand", { brand: ofBrand })}</span>
        ) : null}
        <span className={styles.details}>{t("securityPage.apps.may")}</span>
        <ul className={styles.scopes}>
          {shownScopes(app.scopes).map((scope) => (
            <li key={scope}>{t(`serviceLogin.scopes.${scope}`, { brand: services })}</li>
          ))}
        </ul>
        <Details
          parts={[
            t("securityPage.apps.granted", { date: dateOnly(locale, app.grantedAt) }),
            app.lastUsedAt === null
              ? t("securityPage.apps.neverUsed")
              : t("securityPage.apps.lastUsed", { date: dateOnly(locale, app.lastUsedAt) }),
          ]}
        />
      </span>
      <span className={styles.buttons}>
        <Button
          variant="secondary"
          aria-label={t("securityPage.apps.removeFor", { app: app.name })}
          disabled={busy}
          onClick={onRemove}
        >
          {t("securityPage.apps.remove")}
        </Button>
      </span>
    </>
  );
}
