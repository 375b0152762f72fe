# The worker image (also serves the codec server and the simulated LLM with another command).
# Same steps as a fresh clone and CI: `npm install` from the lockfile, then run TypeScript with tsx.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
COPY schema ./schema
USER node
# Secrets (OPENAI_API_KEY, GOT_CODEC_KEYS) come from the environment at run time, never from the image.
CMD ["node", "--import", "tsx", "worker/main.ts"]
