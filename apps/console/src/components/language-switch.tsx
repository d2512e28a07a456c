import { useId } from 'preact/hooks';
import { Locale, LOCALES, useI18n } from '../i18n';

const NAMES: Record<Locale, string> = { en: 'English', ru: 'Русский' };

/** The language switch: a select labelled "Language" (in the current language). */
export function LanguageSwitch() {
  const { locale, setLocale, t } = useI18n();
  const id = useId();
  return (
    <div class="language">
      <label for={id}>{t('common.language')}</label>
      <select
        id={id}
        value={locale}
        onChange={(e) => setLocale((e.currentTarget as HTMLSelectElement).value as Locale)}
      >
        {LOCALES.map((l) => (
          <option key={l} value={l} lang={l}>
            {NAMES[l]}
          </option>
        ))}
      </select>
    </div>
  );
}
