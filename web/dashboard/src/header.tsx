// The shell's header: the team's name, the menu (a toggle on narrow screens), the pages the user's role may open, and
// the tools (live/test switch, language, who is signed in, sign out).
import { setCsrfToken, signOut } from './api';
import type { Lang } from './i18n';
import { navigate, useRoute } from './router';
import { LangPicker, Link, useApp } from './ui';

export interface HeaderProps {
  setLang: (lang: Lang) => void;
  setMode: (mode: 'live' | 'test') => void;
  onSignedOut: () => void;
  menuOpen: boolean;
  setMenuOpen: (open: boolean) => void;
}

/** True when the link to `to` names the page at `path` (a delivery's page is under Deliveries, not New delivery). */
const isActive = (path: string, to: string) =>
  path === to ||
  (to === '/deliveries' && path.startsWith('/deliveries/') && path !== '/deliveries/new') ||
  (to !== '/deliveries' && path.startsWith(to + '/'));

function NavLinks() {
  const route = useRoute();
  const { t, can } = useApp();
  const links: [string, string, boolean][] = [
    ['/deliveries', t('nav_deliveries'), true],
    ['/deliveries/new', t('nav_new_delivery'), can('developer')],
    ['/cod', t('nav_cod'), true],
    ['/webhooks', t('nav_webhooks'), true],
    ['/keys', t('nav_keys'), true],
    ['/users', t('nav_users'), can('owner')],
    ['/settings', t('nav_settings'), true],
  ];
  return (
    <ul>
      {links
        .filter(([, , shown]) => shown)
        .map(([to, label]) => (
          <li key={to}>
            <Link to={to} aria-current={isActive(route.path, to) ? 'page' : undefined}>
              {label}
            </Link>
          </li>
        ))}
    </ul>
  );
}

function Tools({ setLang, setMode, onSignedOut }: Pick<HeaderProps, 'setLang' | 'setMode' | 'onSignedOut'>) {
  const { t, session, lang, mode } = useApp();
  return (
    <div class="tools">
      <label class="switch">
        <input
          type="checkbox"
          role="switch"
          checked={mode === 'test'}
          onChange={(e) => setMode((e.target as HTMLInputElement).checked ? 'test' : 'live')}
        />
        {t('mode_test')}
      </label>
      <LangPicker class="lang" lang={lang} setLang={setLang} label={t('language')} />
      <span class="who">{t('signed_in_as', { email: session.user.email, role: t(`role_${session.user.role}`) })}</span>
      <button
        type="button"
        class="secondary"
        onClick={() =>
          signOut()
            .catch(() => null)
            .then(() => {
              setCsrfToken(null);
              onSignedOut();
              navigate('/sign-in', { replace: true });
            })
        }
      >
        {t('sign_out')}
      </button>
    </div>
  );
}

export function Header({ menuOpen, setMenuOpen, ...tools }: HeaderProps) {
  const { t, session, mode } = useApp();
  return (
    <header class={`top ${mode === 'test' ? 'test' : ''}`}>
      <div class="bar">
        <span class="brand">{session.tenant.name || t('app_name')}</span>
        <button
          type="button"
          class="menu-toggle secondary"
          aria-expanded={menuOpen}
          aria-controls="nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          {t('menu')}
        </button>
      </div>
      <nav id="nav" class={menuOpen ? 'open' : ''} aria-label={t('menu')}>
        <NavLinks />
        <Tools {...tools} />
      </nav>
    </header>
  );
}
