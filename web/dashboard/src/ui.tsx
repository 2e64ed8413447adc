// Pieces every page uses: the app's context (session, language, mode), links, loading and error states (the
// problem+json in the reader's words, i18n.ts), the list table, a confirmation dialog, the one-time secret box, status badges.
import { createContext, type ComponentChildren } from 'preact';
import { useCallback, useContext, useEffect, useRef, useState } from 'preact/hooks';
import { ApiProblem, NETWORK_ERROR, type Role, type Session } from './api';
import { LANGS, describeProblem, statusLabel, translate, type Lang, type MessageKey } from './i18n';
import { BASE, follow } from './router';

export interface AppState {
  session: Session;
  lang: Lang;
  mode: 'live' | 'test';
  t: (key: MessageKey, params?: Record<string, string | number>) => string;
  /** True when the signed-in user's role is `needed` or above. */
  can: (needed: Role) => boolean;
}

export const AppContext = createContext<AppState | null>(null);
export const useApp = (): AppState => useContext(AppContext)!;

const RANK: Record<Role, number> = { viewer: 0, developer: 1, owner: 2 };
export const roleAllows = (role: Role, needed: Role) => RANK[role] >= RANK[needed];

/** The words of a language without a session (sign-in, password pages). */
export const useWords = (lang: Lang) =>
  useCallback((key: MessageKey, params?: Record<string, string | number>) => translate(lang, key, params), [lang]);

export function Link(props: {
  to: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page' | undefined;
}) {
  const { to, children, ...rest } = props;
  return (
    <a href={BASE + to} onClick={(e) => follow(e as unknown as MouseEvent, to)} {...rest}>
      {children}
    </a>
  );
}

/** The language picker (the shell's header, the sign-in and set-password pages). */
export function LangPicker(props: { lang: Lang; setLang: (lang: Lang) => void; label: string; class: string }) {
  return (
    <label class={props.class}>
      <span class="visually-hidden">{props.label}</span>
      <select value={props.lang} onChange={(e) => props.setLang((e.target as HTMLSelectElement).value as Lang)}>
        {LANGS.map((l) => (
          <option key={l} value={l}>
            {l === 'pt' ? 'Português' : 'English'}
          </option>
        ))}
      </select>
    </label>
  );
}

export function Loading({ label }: { label: string }) {
  return (
    <p class="loading" role="status">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

/**
 * What went wrong in the reader's words: the sentence of the problem's `error` code and each field it points at
 * (i18n.ts describeProblem), never the API's English `detail`. No network: say so.
 */
export function problemMessage(lang: Lang, error: unknown) {
  if (!(error instanceof ApiProblem)) return { sentence: translate(lang, 'problem_unknown'), fields: [] };
  if (error.problem.detail === NETWORK_ERROR) return { sentence: translate(lang, 'network_error'), fields: [] };
  return describeProblem(lang, error.problem);
}

/**
 * A problem as a box: the sentence, the fields at fault by their labels, and behind "Technical details" (closed) the
 * HTTP status, the code and the API's own `detail`, for a developer or support.
 */
export function ErrorBox(props: { error: unknown; t: AppState['t']; onRetry?: () => void; lang?: Lang }) {
  const { error, t, onRetry } = props;
  const app = useContext(AppContext);
  const lang = props.lang ?? app?.lang ?? 'pt';
  const { sentence, fields } = problemMessage(lang, error);
  const problem = error instanceof ApiProblem ? error.problem : null;
  return (
    <div class="error" role="alert" data-problem={problem?.error ?? undefined}>
      <p>
        <strong>{t('error_title')}:</strong> {sentence}
      </p>
      {fields.length ? (
        <ul class="field-errors">
          {fields.map((f) => (
            <li key={f.pointer} data-pointer={f.pointer}>
              <strong>{f.field}</strong> {f.message}
            </li>
          ))}
        </ul>
      ) : null}
      {problem?.status ? (
        <details class="problem-code">
          <summary>{t('technical_details')}</summary>
          <p class="mono wrap">
            HTTP {problem.status}
            {problem.error ? ` · ${problem.error}` : ''} · {problem.detail}
          </p>
        </details>
      ) : null}
      {onRetry ? (
        <button type="button" class="secondary" onClick={onRetry}>
          {t('retry')}
        </button>
      ) : null}
    </div>
  );
}

/** A column of a ListTable: its header; `num` right-aligns it, `hidden` shows the header to screen readers only (actions). */
export type Column = string | { label: string; num?: boolean; hidden?: boolean };

/**
 * A list loaded with useLoad, as every list page shows it: the loading state, the error with a retry, `empty` when it
 * has no rows, else a table with a header cell per column and `row(item)` per item. Nothing while `data` is null.
 */
export function ListTable<R>(props: {
  loaded: Loaded<{ data: R[] } | null>;
  t: AppState['t'];
  columns: (Column | false)[];
  row: (item: R) => ComponentChildren;
  empty?: string;
  class?: string;
}) {
  const { loaded, t, row, empty } = props;
  const columns = props.columns
    .filter((c): c is Column => c !== false)
    .map((c) => (typeof c === 'string' ? { label: c } : c));
  const rows = loaded.data?.data;
  return (
    <>
      {loaded.loading && !loaded.data ? <Loading label={t('loading')} /> : null}
      {loaded.error ? <ErrorBox error={loaded.error} t={t} onRetry={loaded.reload} /> : null}
      {rows && rows.length === 0 && empty ? <p class="empty">{empty}</p> : null}
      {rows && (rows.length > 0 || !empty) ? (
        <table class={props.class ?? 'list'}>
          <thead>
            <tr>
              {columns.map((c) => (
                <th key={c.label} scope="col" class={c.num ? 'num' : undefined}>
                  {c.hidden ? <span class="visually-hidden">{c.label}</span> : c.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{rows.map(row)}</tbody>
        </table>
      ) : null}
    </>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  /** Loads again without showing the loading state (live refresh). */
  refresh: () => void;
}

/** Runs `load` when `deps` change; keeps the last data while refreshing in the background. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: null,
    loading: true,
  });
  const seq = useRef(0);
  const run = useCallback((quiet: boolean) => {
    const mine = ++seq.current;
    if (!quiet) setState((s) => ({ ...s, loading: true, error: null }));
    load().then(
      (data) => mine === seq.current && setState({ data, error: null, loading: false }),
      (error) => mine === seq.current && setState((s) => ({ data: quiet ? s.data : undefined, error, loading: false })),
    );
  }, deps);
  useEffect(() => run(false), [run]);
  return { ...state, reload: () => run(false), refresh: () => run(true) };
}

/** Calls `fn` every `ms` while the page is visible. */
export function useInterval(fn: () => void, ms: number, active = true) {
  const saved = useRef(fn);
  saved.current = fn;
  useEffect(() => {
    if (!active) return;
    const id = setInterval(() => {
      if (document.visibilityState === 'visible') saved.current();
    }, ms);
    return () => clearInterval(id);
  }, [ms, active]);
}

/** A change the user asked for: busy while it runs, its error shown until the next try. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async <T,>(fn: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (err) {
      setError(err);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(null) };
}

type Action = ReturnType<typeof useAction>;

/** A button that runs `change` as `action`, disabled while the action is busy. */
export function ActionButton(props: {
  action: Action;
  change: () => Promise<unknown>;
  class: string;
  children: ComponentChildren;
}) {
  const { action, change } = props;
  return (
    <button type="button" class={props.class} disabled={action.busy} onClick={() => action.run(change)}>
      {props.children}
    </button>
  );
}

/** A form's actions row with its one submit button. */
export function SubmitActions(props: { label: string; disabled: boolean; class?: string }) {
  return (
    <div class="actions">
      <button type="submit" class={props.class ?? 'primary'} disabled={props.disabled}>
        {props.label}
      </button>
    </div>
  );
}

/** The keys of a form's state object that hold text. */
type TextField<F> = { [K in keyof F]: F[K] extends string ? K : never }[keyof F] & string;

/** A labelled input bound to one text field of a form's state object: typing sets `{ ...value, [field]: text }`. */
export function FieldInput<F extends object>(props: {
  label: string;
  value: F;
  field: TextField<F>;
  onChange: (value: F) => void;
  name: string;
  type: 'text' | 'tel' | 'number' | 'datetime-local';
  required?: boolean;
  min?: number;
  step?: number;
  inputMode?: 'numeric' | 'decimal';
  autoComplete?: string;
}) {
  const { label, value, field, onChange, type, ...input } = props;
  return (
    <label>
      {label}
      {/* preact types each input type apart; every one of these takes a text value */}
      <input
        type={type as 'text'}
        {...input}
        value={value[field] as string}
        onInput={(e) => onChange({ ...value, [field]: (e.target as HTMLInputElement).value })}
      />
    </label>
  );
}

/** A button that asks first, in a modal dialog (Escape or "go back" closes it; focus returns to the button). */
export function ConfirmButton(props: {
  label: string;
  question: string;
  onConfirm: () => void;
  danger?: boolean;
  disabled?: boolean;
  class?: string;
}) {
  const { t } = useApp();
  const dialog = useRef<HTMLDialogElement>(null);
  const close = () => dialog.current?.close();
  return (
    <>
      <button
        type="button"
        class={props.class ?? (props.danger ? 'danger' : 'secondary')}
        disabled={props.disabled}
        onClick={() => dialog.current?.showModal()}
      >
        {props.label}
      </button>
      <dialog ref={dialog} aria-label={props.label}>
        <p>{props.question}</p>
        <div class="actions">
          <button type="button" class="secondary" onClick={close}>
            {t('keep')}
          </button>
          <button
            type="button"
            class={props.danger ? 'danger' : 'primary'}
            onClick={() => {
              close();
              props.onConfirm();
            }}
          >
            {t('confirm')}
          </button>
        </div>
      </dialog>
    </>
  );
}

/** A list row's dangerous change (remove, revoke): asks first, then runs `change` as `action`. */
export function RowDangerButton(props: {
  label: string;
  question: string;
  action: Action;
  change: () => Promise<unknown>;
}) {
  const { action, change } = props;
  return (
    <ConfirmButton
      danger
      class="danger small"
      label={props.label}
      question={props.question}
      disabled={action.busy}
      onConfirm={() => action.run(change)}
    />
  );
}

/** A secret shown once (signing secret, API key, set-password link), focused so it is read out and easy to copy. */
export function SecretBox({ label, value, note }: { label: string; value: string; note: string }) {
  const { t } = useApp();
  const [copied, setCopied] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => box.current?.focus(), [value]);
  return (
    <div class="secret" ref={box} tabIndex={-1} role="group" aria-label={label}>
      <p class="note">{note}</p>
      <label>
        {label}
        <input
          readOnly
          value={value}
          class="mono"
          data-secret
          onFocus={(e) => (e.target as HTMLInputElement).select()}
        />
      </label>
      <button
        type="button"
        class="secondary"
        onClick={() =>
          navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {t('copy')}
      </button>
      <span role="status">{copied ? t('copied') : ''}</span>
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  const { lang } = useApp();
  return (
    <span class={`badge status-${status}`} data-status={status}>
      {statusLabel(lang, status)}
    </span>
  );
}

/** Sets the document's title: the page's, then the app's. */
export function useTitle(title: string) {
  const { t } = useApp();
  useEffect(() => {
    document.title = `${title} · ${t('app_name')}`;
  }, [title, t]);
}

/** A note where an action is hidden because the role does not allow it. */
export function RoleNote({ text }: { text: string }) {
  return <p class="role-note">{text}</p>;
}
