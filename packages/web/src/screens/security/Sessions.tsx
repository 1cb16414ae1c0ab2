import { type AnswerOf, routeUrl } from "@gatehouse/contract";
import { securityApi } from "@gatehouse/contract/security";
import { useState } from "react";
import { useTranslation } from "react-i18next";
import { gateway } from "../../api/index.ts";
import { Link } from "../../app/routing.tsx";
import { Alert } from "../../ui/Alert.tsx";
import { Button, secondaryButtonClass } from "../../ui/Button.tsx";
import { useConfirmedCall } from "../../ui/confirmed.ts";
import { useFocusOnChange } from "../../ui/focus.ts";
import { useT } from "../../ui/useT.ts";
import { Details } from "./Details.tsx";
import { PagedSection } from "./PagedSection.tsx";
import { usePagedList } from "./paged.ts";
import styles from "./Security.module.css";
import { countryName, dateTime, deviceWords, localeOf, methodWords, timeAgo } from "./words.ts";

type Session = AnswerOf<typeof securityApi.securitySessions>["sessions"][number];
type Message = { kind: "error" | "success"; text: string };

const loadSessions = async (cursor: string | undefined) => {
  const answer = await gateway().call(securityApi.securitySessions, cursor ? { query: { cursor } } : {});
  return { items: answer.sessions, nextCursor: answer.nextCursor };
};

/**
 * "Where you're signed in" (issue #27): one entry per sign-in (its linked sessions on other hosts together), this
 * browser's marked; another one ends with its own button, this one signs out through the app's sign-out page.
 * "Sign out everywhere else" ends every other sign-in and the access of apps that stay signed in (offline).
 */
export function Sessions({ onEnded }: { onEnded: () => void }) {
  const { t } = useTranslation();
  const tk = useT();
  const list = usePagedList(loadSessions);
  const confirmed = useConfirmedCall();
  const [message, setMessage] = useState<Message>();
  // The entry acted on leaves the list with its button: the heading takes the focus, the message just below it.
  const [done, setDone] = useState(0);
  const heading = useFocusOnChange(done);
  const failed = (key: string) => setMessage({ kind: "error", text: tk(key) });

  const end = (session: Session) => {
    const device = deviceWords(t, session.device);
    setMessage(undefined);
    // Ending one other sign-in only defends the account, and signing in again undoes it: no confirmation.
    return confirmed.run(
      undefined,
      async () => {
        await gateway().call(securityApi.securitySessionEnd, { params: { id: session.id } });
        setMessage({ kind: "success", text: t("securityPage.sessions.ended", { device }) });
        setDone((count) => count + 1);
        list.reload();
        onEnded();
      },
      failed,
    );
  };

  const endOthers = () => {
    setMessage(undefined);
    return confirmed.run(
      t("securityPage.sessions.endOthersConfirm"),
      async () => {
        await gateway().call(securityApi.securitySessionsEndOthers);
        setMessage({ kind: "success", text: t("securityPage.sessions.endedOthers") });
        setDone((count) => count + 1);
        list.reload();
        onEnded();
      },
      failed,
    );
  };

  return (
    <PagedSection
      heading={t("securityPage.sessions.heading")}
      list={list}
      empty={t("securityPage.sessions.none")}
      keyOf={(session) => session.id}
      headingRef={heading}
      above={message ? <Alert kind={message.kind}>{message.text}</Alert> : null}
      render={(session) => <SessionEntry session={session} busy={confirmed.busy} onEnd={() => void end(session)} />}
      // Shown with no other sign-in too: it also ends the access of apps that stay signed in (offline).
      below={
        list.items ? (
          <div className={styles.everywhere}>
            <p>{t("securityPage.sessions.endOthersAbout")}</p>
            <Button variant="secondary" busy={confirmed.busy} onClick={() => void endOthers()}>
              {t("securityPage.sessions.endOthers")}
            </Button>
          </div>
        ) : null
      }
    />
  );
}

/** One sign-in: its device, this browser's badge, how and where, since when, its hosts, and its button. */
function SessionEntry({ session, busy, onEnd }: { session: Session; busy: boolean; onEnd: () => void }) {
  const { t, i18n } = useTranslation();
  const locale = localeOf(i18n.language);
  const device = deviceWords(t, session.device);
  const how = methodWords(t, session.method, session.provider);
  return (
    <>
      <span className={styles.about}>
        <span className={styles.name}>
          {device}
          {session.current ? <span className={styles.badge}>{t("securityPage.sessions.thisBrowser")}</span> : null}
        </span>
        <Details
          parts={[
            how ? t("securityPage.sessions.how", { method: how }) : undefined,
            countryName(locale, session.country),
          ]}
        />
        <Details
          parts={[
            t("securityPage.sessions.started", { date: dateTime(locale, session.startedAt) }),
            t("securityPage.sessions.lastActive", { time: timeAgo(locale, session.lastActiveAt) }),
          ]}
        />
        <Details
          parts={[
            session.hosts.length > 0
              ? t("securityPage.sessions.hosts", { hosts: session.hosts.join(", ") })
              : undefined,
          ]}
        />
      </span>
      <span className={styles.buttons}>
        {session.current ? (
          // This browser's own sign-out is the app's: the sign-out page ends it and says so.
          <Link className={secondaryButtonClass} to={routeUrl("LOGOUT")}>
            {t("securityPage.sessions.signOut")}
          </Link>
        ) : (
          <Button
            variant="secondary"
            aria-label={t("securityPage.sessions.signOutOf", { device })}
            disabled={busy}
            onClick={onEnd}
          >
            {t("securityPage.sessions.signOut")}
          </Button>
        )}
      </span>
    </>
  );
}
