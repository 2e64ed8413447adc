# One image for the API and the worker (docker-compose.yml picks the command).
FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production NO_UPDATE_NOTIFIER=1
COPY package.json package-lock.json ./
# Dev dependencies (tests, linters) stay out of the image.
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY . .
# npm run build: the API, worker and admin bundled into .build/dist, and the workflow bundle, once, into the image.
RUN npx tsx scripts/build.ts && npx tsx scripts/build-widget.ts && chown -R node:node /app/.build
USER node
EXPOSE 3000
# The API keeps a small young generation: a lower, steadier memory footprint per replica (docs/operations.md).
CMD ["node", "--enable-source-maps", "--max-semi-space-size=2", ".build/dist/server.js"]
