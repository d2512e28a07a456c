import type { ComponentChildren, InputHTMLAttributes, SelectHTMLAttributes, TextareaHTMLAttributes } from 'preact';
import { useId, useState } from 'preact/hooks';
import { ProblemError } from '../api/problem';
import { useI18n } from '../i18n';
import { Link } from '../router';

/** A problem body (or any failure) shown as an alert: title, detail and each field's error as text. */
export function ProblemView({ error }: { error: unknown }) {
  const { t } = useI18n();
  if (!error) return null;
  const problem = error instanceof ProblemError ? error.problem : { status: 0, title: String(error) };
  const title = problem.status === 0 ? t('error.network') : (problem.title ?? t('error.generic'));
  return (
    <div class="problem" role="alert">
      <strong>{title}</strong>
      {problem.detail && <p>{problem.detail}</p>}
      {problem.errors && problem.errors.length > 0 && (
        <ul>
          {problem.errors.map((e, i) => (
            <li key={i}>{[e.field, e.message].filter(Boolean).join(': ')}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * Whether a record failed to load because this account has none with its id: 404, or the 403 the
 * gateway answers for another account's record (a 403 for the user's role names the role needed).
 */
export function isNotFound(error: unknown): boolean {
  if (!(error instanceof ProblemError)) return false;
  const { status, type, required_role } = error.problem;
  return status === 404 || (status === 403 && !required_role && !/csrf$/.test(type ?? ''));
}

/**
 * A detail page's load failure: a record this account does not have is a not-found state that
 * names nothing of it; any other failure is shown as its problem.
 */
export function LoadProblem({ error }: { error: unknown }) {
  const { t } = useI18n();
  if (!isNotFound(error)) return <ProblemView error={error} />;
  return (
    <div class="problem" role="alert" data-testid="not-found">
      <strong>{t('common.notFoundTitle')}</strong>
      <p>{t('common.notFoundDetail')}</p>
    </div>
  );
}

/** A record page whose record did not load: its heading (_Not found_ for a record the account lacks), the way back, the failure. */
export function RecordLoadFailure({ error, heading, back }: { error: unknown; heading: string; back: string }) {
  const { t } = useI18n();
  return (
    <>
      <h1>{isNotFound(error) ? t('common.notFoundTitle') : heading}</h1>
      <p>
        <Link href={back}>{t('common.back')}</Link>
      </p>
      <LoadProblem error={error} />
    </>
  );
}

type InputProps = InputHTMLAttributes<HTMLInputElement> & { label: string; hint?: string };

/** An input with its visible label (and an optional hint tied by aria-describedby). */
export function Field({ label, hint, ...input }: InputProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...input} />
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

type SelectProps = SelectHTMLAttributes<HTMLSelectElement> & {
  label: string;
  options: { value: string; label: string }[];
};

export function Select({ label, options, ...select }: SelectProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} {...select}>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}

type TextAreaProps = TextareaHTMLAttributes<HTMLTextAreaElement> & { label: string };

export function TextArea({ label, ...area }: TextAreaProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} {...area} />
    </div>
  );
}

export function Loading() {
  const { t } = useI18n();
  return (
    <p class="muted" role="status">
      {t('common.loading')}
    </p>
  );
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  const id = useId();
  return (
    <section aria-labelledby={id} class="card">
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}

/** A labelled read-only list of facts (term and value). */
export function Facts({ items }: { items: [string, ComponentChildren][] }) {
  return (
    <dl class="facts">
      {items.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** A progress bar with its accessible name and the numbers as text. */
export function Progress({ label, value, max }: { label: string; value: number; max: number }) {
  return (
    <div class="progress-row">
      <progress aria-label={label} value={value} max={Math.max(max, 1)} />
      <span>
        {value} / {max}
      </span>
    </div>
  );
}

/**
 * A destructive action in two steps (no browser dialog): the first press asks, the second does it;
 * moving focus away cancels.
 */
export function ConfirmButton(props: { label: string; confirmLabel: string; name?: string; onConfirm: () => void }) {
  const [armed, setArmed] = useState(false);
  return (
    <button
      type="button"
      class={armed ? 'danger armed' : 'danger'}
      aria-label={armed ? props.confirmLabel : props.name}
      onBlur={() => setArmed(false)}
      onClick={() => {
        if (!armed) return setArmed(true);
        setArmed(false);
        props.onConfirm();
      }}
    >
      {armed ? props.confirmLabel : props.label}
    </button>
  );
}
