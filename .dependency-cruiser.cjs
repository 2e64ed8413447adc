// The import rules of docs/architecture.md, checked by `npm run lint` (depcruise src). ESLint checks what a file
// contains (SQL only in repositories, workflow-safe imports, budgets); this checks how folders depend on each other.
/** Folders of src/ that are not a domain: the platform, the HTTP layer and the composition roots (src/*.ts). */
const LAYERS = '^src/(platform|http)/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'platform-imports-no-domain',
      comment: 'src/platform/ (config, db, temporal, observability) is below every domain and the HTTP layer.',
      severity: 'error',
      from: { path: '^src/platform/' },
      to: { path: '^src/', pathNot: '^src/platform/' },
    },
    {
      name: 'http-imports-no-domain',
      comment:
        'src/http/ (plugins, problem details, schemas, route helpers) serves every domain, so it imports none: a plugin ' +
        'that needs a domain gets it as an option from src/app.ts.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/', pathNot: LAYERS },
    },
    {
      name: 'domains-import-no-composition-root',
      comment: 'src/app.ts, server.ts and worker.ts wire the domains together; a domain never imports them.',
      severity: 'error',
      from: { path: '^src/[^/]+/' },
      to: { path: '^src/(app|server|worker)\\.ts$' },
    },
    {
      name: 'routes-use-other-domains-through-services',
      comment:
        "A routes file reads and writes its own domain's tables; another domain's data goes through that domain's " +
        'services, never its repository.',
      severity: 'error',
      from: { path: '^src/([^/]+)/[^/]*routes\\.ts$' },
      to: { path: '^src/[^/]+/[^/]*repository\\.ts$', pathNot: '^src/$1/' },
    },
    {
      name: 'no-folder-cycles',
      comment:
        'Folders depend one way: no two folders of src/ import each other, directly or through others (import-x/no-cycle ' +
        'in ESLint checks the same for single modules).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/[^/]+' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // src/ (and shared/, which imports nothing of it). workflows/ and activities/ are left out: a workflow names its
    // activities by type and src/ names workflows by type (`import type`, ESLint-checked), a loop Temporal's design asks for (type-only on the
    // workflow side, which ESLint checks: workflow-safe imports only).
    includeOnly: '^(src|shared)/',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
