// Lint rules (`npm run lint`, part of `npm test`). Formatting is Prettier's job (.prettierrc.json); these rules
// keep the code's shape: no import cycles, and the import rule of docs/architecture.md:
//   workflows/   only workflow-safe modules (other workflow files, @temporalio/workflow|common, activity *types*)
//   src/         never activities/ (only src/worker.ts wires them), never src/app.ts (only server, tests, scripts)
// Unused exports and files are knip's job (knip.json, `npm run lint`).
import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Modules a workflow must not load: they do I/O or need Node, which Temporal's sandbox does not give. */
const notWorkflowSafe = [
  '**/activities/**',
  '**/src/**',
  '**/scripts/**',
  '**/simulator/**',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  'pg',
  'pino',
  'undici',
  'fastify',
  'node:*',
];

/** A literal that starts an SQL statement (upper-case keywords, as every query here is written). */
const SQL = String.raw`/^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|LISTEN|NOTIFY|TRUNCATE)\s/`;
const SQL_MESSAGE = 'SQL belongs in a repository (src/<domain>/repository.ts): call a repository function from here.';

// Files still over a budget while the redesign (#26) splits them. Remove a file from this list when it fits; the
// list must be empty when #26 is done.
const BUDGET_PENDING = [];

export default tseslint.config(
  {
    ignores: [
      '.build/**',
      '.data/**',
      '.tools/**',
      'node_modules/**',
      'test-results/**',
      'clients/**/dist/**',
      'clients/typescript/src/schema.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  importX.flatConfigs.typescript,
  {
    languageOptions: { globals: { ...globals.node } },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-control-regex': 'off',
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: notWorkflowSafe,
              allowTypeImports: true,
              message:
                'Workflows run in a sandbox: import only workflow-safe modules (and activity types with `import type`).',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/worker.ts', 'src/server.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/activities/**'],
              message: 'src/ holds the domain: call its services; activities/ are thin wrappers the worker runs.',
            },
            {
              group: ['**/workflows/**'],
              allowTypeImports: true,
              message:
                "Start a workflow by its name with the function's type (`import type`), so the API never loads workflow code; only src/worker.ts bundles workflows/.",
            },
            {
              group: ['**/app.js', '**/app'],
              allowTypeImports: false,
              message: 'Import AppDeps from src/platform/deps.ts; only src/server.ts, tests and scripts build the app.',
            },
          ],
        },
      ],
    },
  },
  // SQL lives in repositories only (src/<domain>/repository.ts, or *-repository.ts beside it): a string or template
  // literal that starts a statement anywhere else in the application code is an error (the folder rules, one per
  // domain and no route reading another domain's repository, are dependency-cruiser's: .dependency-cruiser.cjs).
  // Migrations are .sql files;
  // scripts, tests and benchmarks set up and inspect databases and are not checked.
  {
    files: ['src/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts', 'shared/**/*.ts'],
    // Besides the repositories: the pool's own liveness probe (SELECT 1) and the key cache's LISTEN for invalidations.
    ignores: ['**/repository.ts', '**/*-repository.ts', 'src/platform/db.ts', 'src/keys/cache.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `Literal[value=${SQL}]`,
          message: SQL_MESSAGE,
        },
        {
          selector: `TemplateElement[value.raw=${SQL}]`,
          message: SQL_MESSAGE,
        },
      ],
    },
  },
  {
    files: ['web/**/*.ts', 'web/**/*.tsx'],
    languageOptions: { globals: { ...globals.browser } },
  },
  // Budgets (#26): no file over 400 lines, no function over 80 (blank lines and comments not counted). Tests, benchmarks
  // and generated files are excepted: a test file's describe() is a list of cases, not a function to read at once.
  {
    files: [
      'src/**/*.ts',
      'workflows/**/*.ts',
      'activities/**/*.ts',
      'shared/**/*.ts',
      'simulator/**/*.ts',
      'scripts/**/*.ts',
      'web/**/*.ts',
      'web/**/*.tsx',
    ],
    ignores: BUDGET_PENDING,
    rules: {
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
);
