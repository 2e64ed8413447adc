# One image for the API, the worker and the database steps (docker-compose.yml picks the command).
# Node 24 LTS (package.json engines and its pinned `node` devDependency).

# Build stage: every dependency (esbuild, tsx ...) to run `npm run build`: the API, worker, admin, migrate and
# create-role bundles in .build/dist, the workflow bundle and the widget.
FROM node:24-slim AS build
WORKDIR /app
ENV NO_UPDATE_NOTIFIER=1
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime image: production dependencies only (no compiler, no test tools), the bundles and the migrations;
# no source code. Files belong to root and the processes run as `node`: they cannot rewrite their own code.
FROM node:24-slim
WORKDIR /app
# MALLOC_ARENA_MAX=2: two glibc malloc arenas instead of up to 8 per core, less native memory (docs/operations.md);
# the API's command takes one.
ENV NODE_ENV=production NO_UPDATE_NOTIFIER=1 WORKFLOW_BUNDLE_PATH=/app/.build/workflow-bundle.js MALLOC_ARENA_MAX=2
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/.build ./.build
COPY migrations ./migrations
USER node
EXPOSE 3000
# The API compiles without V8's mid tier (--no-maglev: its compile jobs left 12-17 MB of freed zone memory in the malloc
# arena at the peak), favours memory over speed (--optimize-for-size: V8 collects garbage sooner, inlines less), keeps
# a 2 MB young generation and a 512 MB old generation (about 60 MB live), and maps no stack traces to TypeScript
# (source maps cost it about 10 MB; set NODE_OPTIONS=--enable-source-maps to have them): under 150 MB per replica
# (docs/operations.md).
# One malloc arena (the image's ENV says 2, for the worker's threads).
CMD ["env", "MALLOC_ARENA_MAX=1", "node", "--no-maglev", "--optimize-for-size", "--max-semi-space-size=2", "--max-old-space-size=512", ".build/dist/server.js"]
