// The account's users (owners only): invite (a one-time set-password link to send), change a role, send a new
// link, remove (their sessions end at once).
import { useState } from 'preact/hooks';
import { api, call, type Role } from '../api';
import { formatDateTime } from '../format';
import { ConfirmButton, ErrorBox, ListTable, RoleNote, SecretBox, useAction, useApp, useLoad, useTitle } from '../ui';

const ROLES: Role[] = ['viewer', 'developer', 'owner'];

export function UsersPage() {
  const { t, lang, can, session } = useApp();
  useTitle(t('users_title'));
  const owner = can('owner');
  const list = useLoad(() => (owner ? call(api.GET('/v1/users', { params: { query: { limit: 100 } } })) : Promise.resolve(null)), [owner]);
  const action = useAction();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const [link, setLink] = useState<string | null>(null);

  if (!owner) {
    return (
      <>
        <h1 tabIndex={-1}>{t('users_title')}</h1>
        <RoleNote text={t('users_owner_only')} />
      </>
    );
  }

  const invite = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const created = await call(api.POST('/v1/users', { body: { email: email.trim(), role } }));
      setLink(created.set_password_url);
      setEmail('');
      list.refresh();
    });
  };

  return (
    <>
      <h1 tabIndex={-1}>{t('users_title')}</h1>
      {link ? <SecretBox label={t('new_link')} value={link} note={t('link_once')} /> : null}
      {action.error ? <ErrorBox error={action.error} t={t} /> : null}
      <ListTable
        loaded={list}
        t={t}
        columns={[t('email'), t('role'), t('user_status'), t('last_sign_in'), { label: t('remove'), hidden: true }]}
        row={(u) => (
          <tr key={u.id} data-user={u.email}>
            <th scope="row" data-label={t('email')} class="wrap">
              {u.email}
            </th>
            <td data-label={t('role')}>
              <select
                aria-label={t('change_role', { email: u.email })}
                value={u.role}
                disabled={action.busy}
                onChange={(e) => {
                  const next = (e.target as HTMLSelectElement).value as Role;
                  void action
                    .run(async () => {
                      await call(api.PATCH('/v1/users/{id}', { params: { path: { id: u.id } }, body: { role: next } }));
                    })
                    .then(() => list.refresh()); // also puts a refused change back
                }}
              >
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {t(`role_${r}`)}
                  </option>
                ))}
              </select>
            </td>
            <td data-label={t('user_status')}>{u.status === 'active' ? t('user_active') : t('user_invited')}</td>
            <td data-label={t('last_sign_in')}>{formatDateTime(lang, u.last_sign_in_at)}</td>
            <td>
              <div class="actions">
                <button
                  type="button"
                  class="secondary small"
                  disabled={action.busy}
                  onClick={() =>
                    action.run(async () => {
                      const answer = await call(api.POST('/v1/users/{id}/password_link', { params: { path: { id: u.id } } }));
                      setLink(answer.set_password_url);
                    })
                  }
                >
                  {t('new_link')}
                </button>
                {u.id !== session.user.id ? (
                  <ConfirmButton
                    danger
                    class="danger small"
                    label={t('remove')}
                    question={t('remove_confirm', { email: u.email })}
                    disabled={action.busy}
                    onConfirm={() =>
                      action.run(async () => {
                        await call(api.DELETE('/v1/users/{id}', { params: { path: { id: u.id } } }));
                        list.refresh();
                      })
                    }
                  />
                ) : null}
              </div>
            </td>
          </tr>
        )}
      />

      <form class="card stack" onSubmit={invite} aria-labelledby="h-invite">
        <h2 id="h-invite">{t('invite_user')}</h2>
        <div class="row">
          <label class="grow">
            {t('email')}
            <input type="email" name="email" required value={email} onInput={(e) => setEmail((e.target as HTMLInputElement).value)} />
          </label>
          <label>
            {t('role')}
            <select name="role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as Role)}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {t(`role_${r}`)}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={action.busy}>
            {t('invite')}
          </button>
        </div>
      </form>
    </>
  );
}
