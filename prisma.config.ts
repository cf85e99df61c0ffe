import { defineConfig } from 'prisma/config';

// Read only by the Prisma CLI. The relay's own processes take DATABASE_URL through their config schema.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/test' },
});
