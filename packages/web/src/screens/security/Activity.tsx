import type { AnswerOf } from "@gatehouse/contract";
import { securityApi } from "@gatehouse/contract/security";
import type { TFunction } from "i18next";
import { type Ref, useImperativeHandle } from "react";
import { useTranslation } from "react-i18next";
import { gateway } from "../../api/index.ts";
import { Details } from "./Details.tsx";
import { PagedSection } from "./PagedSection.tsx";
import { usePagedList } from "./paged.ts";
import styles from "./Security.module.css";
import { countryName, dateTime, deviceWords, localeOf, methodWords, providerName } from "./words.ts";

type Event = AnswerOf<typeof securityApi.securityActivity>["events"][number];

const loadActivity = async (cursor: string | undefined) => {
  const answer = await gateway().call(securityApi.securityActivity, cursor ? { query: { cursor } } : {});
  return { items: answer.events, nextCursor: answer.nextCursor };
};

/** What happened, in words: one catalog entry per kind, with the method, provider, factor or app put in. */
export function eventWords(t: TFunction, event: Event): string {
  const unknown = t("securityPage.activity.unknownName");
  const values = {
    method: methodWords(t, event.method, event.provider) ?? "",
    provider: event.provider ? providerName(event.provider) : unknown,
    factor: t(`securityPage.activity.factors.${event.factor ?? "any"}`),
    app: event.app ?? unknown,
  };
  if (event.kind === "sign_in" && !values.method) return t("securityPage.activity.signedIn");
  return t(`securityPage.activity.kinds.${event.kind}`, values);
}

/** "Recent activity" (issue #27): the person's own security events, newest first; reloads after a change here. */
export function Activity({ ref }: { ref?: Ref<{ reload: () => void }> }) {
  const { t, i18n } = useTranslation();
  const locale = localeOf(i18n.language);
  const list = usePagedList(loadActivity);
  useImperativeHandle(ref, () => ({ reload: list.reload }), [list.reload]);
  return (
    <PagedSection
      heading={t("securityPage.activity.heading")}
      list={list}
      empty={t("securityPage.activity.none")}
      keyOf={(event, index) => `${event.at}-${event.kind}-${index}`}
      render={(event) => (
        <span className={styles.about}>
          <span className={styles.name}>{eventWords(t, event)}</span>
          <Details
            parts={[deviceWords(t, event.device), countryName(locale, event.country), dateTime(locale, event.at)]}
          />
        </span>
      )}
    />
  );
}
