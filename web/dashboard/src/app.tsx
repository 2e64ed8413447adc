// The dashboard's shell: the session (or the sign-in page), the language and live/test mode, the header and the
// page the path names. Pages load their own data from the /v1 routes (./api.ts).
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  ApiProblem,
  currentSession,
  handleSessionEnded,
  setCsrfToken,
  setMode as setApiMode,
  type Session,
} from './api';
import { translate, type Lang } from './i18n';
import { navigate, useRoute } from './router';
import { Header } from './header';
import { AppContext, Link, Loading, roleAllows, useApp, type AppState } from './ui';
import { DeliveriesPage } from './pages/deliveries';
import { DeliveryPage } from './pages/delivery';
import { NewDeliveryPage } from './pages/new-delivery';
import { WebhooksPage } from './pages/webhooks';
import { WebhookEndpointPage } from './pages/webhook-endpoint';
import { ApiKeysPage } from './pages/api-keys';
import { UsersPage } from './pages/users';
import { SettingsPage } from './pages/settings';
import { CodPage } from './pages/cod';
import { SetPasswordPage, SignInPage } from './pages/sign-in';

const stored = (name: string) => {
  try {
    return localStorage.getItem(name);
  } catch {
    return null;
  }
};
const store = (name: string, value: string) => {
  try {
    localStorage.setItem(name, value);
  } catch {
    /* private mode: the choice lasts this page only */
  }
};

function initialLang(): Lang {
  const asked = new URLSearchParams(location.search).get('lang');
  if (asked === 'en' || asked === 'pt') return asked;
  return stored('dashboard-lang') === 'en' ? 'en' : 'pt';
}

export function App() {
  const route = useRoute();
  const [lang, setLangState] = useState<Lang>(initialLang);
  const [mode, setModeState] = useState<'live' | 'test'>(() => (stored('dashboard-mode') === 'test' ? 'test' : 'live'));
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [ended, setEnded] = useState<string | null>(null);
  setApiMode(mode);

  useEffect(() => {
    document.documentElement.lang = lang === 'pt' ? 'pt-AO' : 'en';
  }, [lang]);

  useEffect(() => {
    handleSessionEnded((detail) => {
      setCsrfToken(null);
      setSession(null);
      setEnded(detail);
    });
    if (route.path === '/set-password') return;
    currentSession().then(
      (s) => {
        setCsrfToken(s.csrf_token);
        setSession(s);
      },
      (err) => {
        setSession(null);
        if (err instanceof ApiProblem && err.status === 401 && /expired|ended/.test(err.problem.detail))
          setEnded(err.problem.detail);
      },
    );
  }, []);

  const setLang = (value: Lang) => {
    store('dashboard-lang', value);
    setLangState(value);
  };
  const setMode = (value: 'live' | 'test') => {
    store('dashboard-mode', value);
    setApiMode(value);
    setModeState(value);
  };
  const t = (key: Parameters<typeof translate>[1], params?: Record<string, string | number>) =>
    translate(lang, key, params);

  if (route.path === '/set-password') return <SetPasswordPage lang={lang} setLang={setLang} />;
  if (session === undefined) return <Loading label={t('loading')} />;
  if (session === null) {
    return (
      <SignInPage
        lang={lang}
        setLang={setLang}
        message={ended ? t('session_ended') : null}
        onSignedIn={(s) => {
          setCsrfToken(s.csrf_token);
          setEnded(null);
          setSession(s);
          if (route.path === '/' || route.path === '/sign-in') navigate('/deliveries', { replace: true });
        }}
      />
    );
  }
  return (
    <Shell
      session={session}
      lang={lang}
      setLang={setLang}
      mode={mode}
      setMode={setMode}
      onSignedOut={() => setSession(null)}
    />
  );
}

interface ShellProps {
  session: Session;
  lang: Lang;
  setLang: (lang: Lang) => void;
  mode: 'live' | 'test';
  setMode: (mode: 'live' | 'test') => void;
  onSignedOut: () => void;
}

function Shell({ session, lang, setLang, mode, setMode, onSignedOut }: ShellProps) {
  const route = useRoute();
  const [menuOpen, setMenuOpen] = useState(false);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const state: AppState = useMemo(
    () => ({
      session,
      lang,
      mode,
      t: (key, params) => translate(lang, key, params),
      can: (needed) => roleAllows(session.user.role, needed),
    }),
    [session, lang, mode],
  );
  const { t } = state;

  // A new page: its heading gets the focus (screen readers announce it), the menu closes.
  useEffect(() => {
    setMenuOpen(false);
    if (first.current) {
      first.current = false;
      return;
    }
    (main.current?.querySelector('h1') as HTMLElement | null)?.focus();
  }, [route.path]);

  useEffect(() => {
    if (route.path === '/' || route.path === '/sign-in') navigate('/deliveries', { replace: true });
  }, [route.path]);

  return (
    <AppContext.Provider value={state}>
      <a class="skip" href="#main">
        {t('skip_to_content')}
      </a>
      <Header
        setLang={setLang}
        setMode={setMode}
        onSignedOut={onSignedOut}
        menuOpen={menuOpen}
        setMenuOpen={setMenuOpen}
      />
      {mode === 'test' ? (
        <p class="test-banner" role="note">
          {t('mode_test_banner')}
        </p>
      ) : null}
      <main id="main" ref={main} tabIndex={-1}>
        <Page key={`${mode}:${route.path}`} path={route.path} />
      </main>
      <footer class="foot">{t('times_in_luanda')}</footer>
    </AppContext.Provider>
  );
}

function Page({ path }: { path: string }) {
  const { t } = useApp();
  const parts = path.split('/').filter(Boolean);
  if (path === '/' || path === '/deliveries' || path === '/sign-in') return <DeliveriesPage />;
  if (path === '/deliveries/new') return <NewDeliveryPage />;
  if (parts[0] === 'deliveries' && parts.length === 2) return <DeliveryPage id={parts[1]} />;
  if (path === '/webhooks') return <WebhooksPage />;
  if (parts[0] === 'webhooks' && parts.length === 2) return <WebhookEndpointPage id={parts[1]} />;
  if (path === '/keys') return <ApiKeysPage />;
  if (path === '/users') return <UsersPage />;
  if (path === '/settings') return <SettingsPage />;
  if (path === '/cod') return <CodPage />;
  return (
    <>
      <h1 tabIndex={-1}>{t('not_found_page')}</h1>
      <p>
        <Link to="/deliveries">{t('nav_deliveries')}</Link>
      </p>
    </>
  );
}
