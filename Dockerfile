# One image for api, delivery-worker and the one-shot migrate service (compose picks the command).
FROM node:24-bookworm-slim AS build
WORKDIR /app
# pnpm 10 is the last major that runs on Node 20; corepack's signature check fails behind some mirrors.
RUN npm install -g pnpm@10.34.8
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
COPY apps/api/package.json apps/api/
COPY apps/delivery-worker/package.json apps/delivery-worker/
COPY packages/core/package.json packages/core/
COPY packages/db/package.json packages/db/
COPY packages/queue/package.json packages/queue/
COPY packages/test-support/package.json packages/test-support/
# Dependency install scripts stay off (pnpm 10 default): Prisma's would download native engines.
RUN pnpm install --frozen-lockfile
COPY . .
RUN node scripts/prisma-generate.mjs && node scripts/build.mjs

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# Full node_modules: the migrate service uses the wasm schema engine from the dev dependencies.
COPY --from=build --chown=node:node /app /app
USER node
EXPOSE 3000
CMD ["node", "apps/api/dist/main.mjs"]
