# The worker image (also serves the codec server and the simulated LLM with another command).
# Same steps as a fresh clone and CI: `npm install` from the lockfile, then `npm run build` (what
# `npm install` runs as `prepare`) compiles dist/. The image keeps dist/ and the production packages.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The empty stand-in that replaces node-llama-cpp's GPU binaries (decision 67) is installed from here.
COPY stubs ./stubs
# No scripts yet: `prepare` would build before the sources are copied; the build is its own step below.
RUN npm install --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts/build.mjs ./scripts/build.mjs
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY stubs ./stubs
COPY scripts/prune-binaries.mjs ./scripts/prune-binaries.mjs
# The prune (our `postinstall`, skipped by --ignore-scripts) runs in the install's layer: files removed
# in a later layer would still be in the image.
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund && node scripts/prune-binaries.mjs
COPY schema ./schema
COPY bin ./bin
# Without the sources beside it, dist/ is used as built (decision 21): the image is the build.
COPY --from=build /app/dist ./dist
USER node
# Secrets (OPENAI_API_KEY, GOT_CODEC_KEYS) come from the environment at run time, never from the image.
CMD ["node", "bin/got-worker.js"]
