import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { en, MessageKey } from './en';
import { ru } from './ru';

export type { MessageKey } from './en';
export type Locale = 'en' | 'ru';
export const LOCALES: Locale[] = ['en', 'ru'];
export const DICTIONARIES: Record<Locale, Record<MessageKey, string>> = { en, ru };

/** The only thing the console keeps in localStorage: the chosen language. */
const STORAGE_KEY = 'console.locale';

export function storedLocale(): Locale {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved === 'en' || saved === 'ru') return saved;
  } catch {
    // Storage unavailable: the browser's language decides.
  }
  return navigator.language.toLowerCase().startsWith('ru') ? 'ru' : 'en';
}

export function storeLocale(locale: Locale): void {
  try {
    localStorage.setItem(STORAGE_KEY, locale);
  } catch {
    // Storage unavailable: the choice lasts until reload.
  }
}

export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

export function translator(locale: Locale): Translate {
  const dict = DICTIONARIES[locale];
  return (key, vars) => {
    const text = dict[key] ?? en[key];
    return vars ? text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m)) : text;
  };
}

export interface I18n {
  locale: Locale;
  t: Translate;
  setLocale: (locale: Locale) => void;
}

export const I18nContext = createContext<I18n>({ locale: 'en', t: translator('en'), setLocale: () => undefined });

export function useI18n(): I18n {
  return useContext(I18nContext);
}
