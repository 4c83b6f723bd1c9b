# The shop API's image (issue 31; docs/going-live.md). Built by `deploy/deploy.sh release` with
# Cloud Build; tests/deploy/artifact.test.ts builds the same files the same way without Docker
# (no base images can be pulled on the development machine) and runs them, so keep the COPY lines
# plain: that test reads them from here.
#
# Node 24 runs the TypeScript as it is (type stripping), so the image runs the sources, not a
# bundle: the same files the tests run, stack traces that point at them, and no bundler whose
# output nobody has tested. The price is ~150 MB of node_modules, paid once per release.
#
# The base image names a Node release, not just "24": type stripping is stable (no warning, no
# flag) from 24.12, and a floating tag would build each release on whatever Node 24 is newest that
# day. The same release as package.json's devDependency "node", which the tests run on
# (tests/deploy/dockerfile.test.ts checks the two agree): update both together.

FROM node:24.21.0-bookworm-slim AS dependencies
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# The API's packages only (package.json "dependencies"); the site's build tools, the tests and the
# stand-ins' packages are devDependencies. No install scripts: none of these packages needs one.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:24.21.0-bookworm-slim AS runtime
WORKDIR /app
ENV NODE_ENV=production
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json ./
COPY src/server ./src/server
COPY src/contract ./src/contract
COPY src/config ./src/config
COPY src/catalogue ./src/catalogue
COPY src/i18n ./src/i18n
COPY src/lib ./src/lib
COPY src/pricing ./src/pricing
COPY locales ./locales
COPY public/flags ./public/flags
# The image's user owns nothing it runs: the code cannot be changed by the process serving it.
USER node
EXPOSE 8080
CMD ["node", "src/server/main.ts"]
