// Signing in (email and password: a session cookie; when they open accounts in several teams, the team chosen from
// the list the API answered), and setting a password from the one-time link an owner sent.
import { useEffect, useRef, useState } from 'preact/hooks';
import { setPassword, signIn, type Session, type TeamChoice } from '../api';
import type { Lang } from '../i18n';
import { BASE } from '../router';
import { LangPicker, problemMessage, useWords } from '../ui';

/** A failed sign-in or password change in the reader's words (never the API's English `detail`). */
const detailOf = (err: unknown, lang: Lang) => {
  const { sentence, fields } = problemMessage(lang, err);
  return [sentence, ...fields.map((f) => `${f.field}: ${f.message}.`)].join(' ');
};

/** A form's error message, where the person filling it in is looking. */
function FormError({ error }: { error: string | null }) {
  return error ? (
    <div class="error" role="alert">
      <p>{error}</p>
    </div>
  ) : null;
}

type Words = ReturnType<typeof useWords>;

/** The teams the email and password open: one button each, and a way back to other credentials. */
function TeamList(props: {
  t: Words;
  teams: TeamChoice['tenants'];
  busy: boolean;
  error: string | null;
  choose: (tenantId: string) => void;
  back: () => void;
}) {
  const { t, busy } = props;
  return (
    <div class="card stack">
      <p>{t('choose_team_hint')}</p>
      <ul class="stack" aria-label={t('choose_team_title')}>
        {props.teams.map((team) => (
          <li key={team.id}>
            <button type="button" class="primary" disabled={busy} onClick={() => props.choose(team.id)}>
              {team.name || team.id}
            </button>
          </li>
        ))}
      </ul>
      <FormError error={props.error} />
      <button type="button" disabled={busy} onClick={props.back}>
        {t('other_account')}
      </button>
    </div>
  );
}

function CredentialsForm(props: {
  t: Words;
  email: string;
  setEmail: (value: string) => void;
  password: string;
  setPassword: (value: string) => void;
  busy: boolean;
  error: string | null;
  submit: (event: Event) => void;
}) {
  const { t, busy } = props;
  return (
    <form onSubmit={props.submit} class="card stack">
      <label>
        {t('email')}
        <input
          type="email"
          name="email"
          autoComplete="username"
          required
          value={props.email}
          onInput={(e) => props.setEmail((e.target as HTMLInputElement).value)}
        />
      </label>
      <label>
        {t('password')}
        <input
          type="password"
          name="password"
          autoComplete="current-password"
          required
          value={props.password}
          onInput={(e) => props.setPassword((e.target as HTMLInputElement).value)}
        />
      </label>
      <FormError error={props.error} />
      <button type="submit" class="primary" disabled={busy}>
        {busy ? t('signing_in') : t('sign_in')}
      </button>
    </form>
  );
}

export function SignInPage(props: {
  lang: Lang;
  setLang: (lang: Lang) => void;
  message: string | null;
  onSignedIn: (session: Session) => void;
}) {
  const t = useWords(props.lang);
  const [email, setEmail] = useState('');
  const [password, setPasswordValue] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [teams, setTeams] = useState<TeamChoice['tenants'] | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${t(teams ? 'choose_team_title' : 'sign_in_title')} · ${t('app_name')}`;
  }, [t, teams]);
  useEffect(() => {
    if (teams) heading.current?.focus(); // a new step of the form: its heading, as a new page
  }, [teams]);

  /** Signs in (to `tenantId`'s team when given); a list of teams to choose from comes back when the password opens several. */
  const attempt = async (tenantId?: string) => {
    setBusy(true);
    setError(null);
    try {
      const answer = await signIn(email, password, tenantId);
      if ('tenants' in answer) setTeams(answer.tenants);
      else props.onSignedIn(answer);
    } catch (err) {
      setError(detailOf(err, props.lang));
      setPasswordValue('');
      setTeams(null);
    } finally {
      setBusy(false);
    }
  };
  const submit = (event: Event) => {
    event.preventDefault();
    void attempt();
  };
  const back = () => {
    setTeams(null);
    setPasswordValue('');
  };

  return (
    <main id="main" class="narrow">
      <LangPicker class="lang corner" lang={props.lang} setLang={props.setLang} label={t('language')} />
      <h1 ref={heading} tabIndex={-1}>
        {t(teams ? 'choose_team_title' : 'sign_in_title')}
      </h1>
      {teams ? (
        <TeamList t={t} teams={teams} busy={busy} error={error} choose={(id) => void attempt(id)} back={back} />
      ) : (
        <>
          {props.message ? (
            <p class="notice" role="status">
              {props.message}
            </p>
          ) : null}
          <CredentialsForm
            t={t}
            email={email}
            setEmail={setEmail}
            password={password}
            setPassword={setPasswordValue}
            busy={busy}
            error={error}
            submit={submit}
          />
        </>
      )}
    </main>
  );
}

/** A new password's input (typed twice: the password, then again). */
function NewPassword({ label, value, setValue }: { label: string; value: string; setValue: (value: string) => void }) {
  return (
    <label>
      {label}
      <input
        type="password"
        autoComplete="new-password"
        minLength={12}
        required
        value={value}
        onInput={(e) => setValue((e.target as HTMLInputElement).value)}
      />
    </label>
  );
}

export function SetPasswordPage(props: { lang: Lang; setLang: (lang: Lang) => void }) {
  const t = useWords(props.lang);
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  const [password, setPasswordValue] = useState('');
  const [again, setAgain] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);
  useEffect(() => {
    document.title = `${t('set_password_title')} · ${t('app_name')}`;
  }, [t]);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (password !== again) {
      setError(t('passwords_differ'));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await setPassword(token!, password);
      setDone(true);
      history.replaceState(null, '', `${BASE}/set-password`); // the token is spent: out of the address bar and history
    } catch (err) {
      setError(detailOf(err, props.lang));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" class="narrow">
      <LangPicker class="lang corner" lang={props.lang} setLang={props.setLang} label={t('language')} />
      <h1 tabIndex={-1}>{t('set_password_title')}</h1>
      {done ? (
        <div class="card">
          <p role="status">{t('password_saved')}</p>
          <p>
            <a href={`${BASE}/sign-in`}>{t('go_sign_in')}</a>
          </p>
        </div>
      ) : !token ? (
        <p class="error" role="alert">
          {t('link_missing')}
        </p>
      ) : (
        <form onSubmit={submit} class="card stack">
          <NewPassword label={t('new_password')} value={password} setValue={setPasswordValue} />
          <NewPassword label={t('confirm_password')} value={again} setValue={setAgain} />
          <FormError error={error} />
          <button type="submit" class="primary" disabled={busy}>
            {t('save_password')}
          </button>
        </form>
      )}
    </main>
  );
}
