// The account's users (owners only): invite (a one-time set-password link to send), change a role, send a new
// link, remove (their sessions end at once).
import { useState } from 'preact/hooks';
import { api, call, type Role, type User } from '../api';
import { formatDateTime } from '../format';
import {
  ActionButton,
  ErrorBox,
  ListTable,
  RoleNote,
  RowDangerButton,
  SecretBox,
  SubmitActions,
  useAction,
  useApp,
  useLoad,
  useTitle,
  type AppState,
} from '../ui';

const ROLES: Role[] = ['viewer', 'developer', 'owner'];

/** The options of a role select (a user's row, the invitation). */
const roleOptions = (t: AppState['t']) =>
  ROLES.map((r) => (
    <option key={r} value={r}>
      {t(`role_${r}`)}
    </option>
  ));

type Action = ReturnType<typeof useAction>;

/** A user: the role (changed at once), status, last sign-in, a new set-password link, and remove (not oneself). */
function UserRow(props: { u: User; action: Action; refresh: () => void; setLink: (link: string) => void }) {
  const { t, lang, session } = useApp();
  const { u, action, refresh } = props;
  // Removing a user ends their sessions at once.
  const remove = async (id: string) => {
    await call(api.DELETE('/v1/users/{id}', { params: { path: { id } } }));
    refresh();
  };
  return (
    <tr data-user={u.email}>
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
              .then(() => refresh()); // also puts a refused change back
          }}
        >
          {roleOptions(t)}
        </select>
      </td>
      <td data-label={t('user_status')}>{u.status === 'active' ? t('user_active') : t('user_invited')}</td>
      <td data-label={t('last_sign_in')}>{formatDateTime(lang, u.last_sign_in_at)}</td>
      <td>
        <div class="actions">
          <ActionButton
            class="secondary small"
            action={action}
            change={async () => {
              const answer = await call(api.POST('/v1/users/{id}/password_link', { params: { path: { id: u.id } } }));
              props.setLink(answer.set_password_url);
            }}
          >
            {t('new_link')}
          </ActionButton>
          {u.id !== session.user.id ? (
            <RowDangerButton
              label={t('remove')}
              question={t('remove_confirm', { email: u.email })}
              action={action}
              change={() => remove(u.id)}
            />
          ) : null}
        </div>
      </td>
    </tr>
  );
}

/** Invite a user by email with a role: the answer's one-time set-password link goes to `setLink`. */
function InviteForm(props: { action: Action; refresh: () => void; setLink: (link: string) => void }) {
  const { t } = useApp();
  const { action } = props;
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('developer');
  const invite = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const created = await call(api.POST('/v1/users', { body: { email: email.trim(), role } }));
      props.setLink(created.set_password_url);
      setEmail('');
      props.refresh();
    });
  };
  return (
    <form class="card stack" onSubmit={invite} aria-labelledby="h-invite">
      <h2 id="h-invite">{t('invite_user')}</h2>
      <div class="row">
        <label class="grow">
          {t('email')}
          <input
            type="email"
            name="email"
            required
            value={email}
            onInput={(e) => setEmail((e.target as HTMLInputElement).value)}
          />
        </label>
        <label>
          {t('role')}
          <select name="role" value={role} onChange={(e) => setRole((e.target as HTMLSelectElement).value as Role)}>
            {roleOptions(t)}
          </select>
        </label>
      </div>
      <SubmitActions label={t('invite')} disabled={action.busy} />
    </form>
  );
}

export function UsersPage() {
  const { t, can } = useApp();
  useTitle(t('users_title'));
  const owner = can('owner');
  const list = useLoad(
    () => (owner ? call(api.GET('/v1/users', { params: { query: { limit: 100 } } })) : Promise.resolve(null)),
    [owner],
  );
  const action = useAction();
  const [link, setLink] = useState<string | null>(null);

  if (!owner) {
    return (
      <>
        <h1 tabIndex={-1}>{t('users_title')}</h1>
        <RoleNote text={t('users_owner_only')} />
      </>
    );
  }

  return (
    <>
      <h1 tabIndex={-1}>{t('users_title')}</h1>
      {link ? <SecretBox label={t('new_link')} value={link} note={t('link_once')} /> : null}
      {action.error ? <ErrorBox error={action.error} t={t} /> : null}
      <ListTable
        loaded={list}
        t={t}
        columns={[t('email'), t('role'), t('user_status'), t('last_sign_in'), { label: t('remove'), hidden: true }]}
        row={(u) => <UserRow key={u.id} u={u} action={action} refresh={list.refresh} setLink={setLink} />}
      />

      <InviteForm action={action} refresh={list.refresh} setLink={setLink} />
    </>
  );
}
