import { stat } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '@relay/core';
import type { Response } from 'express';
import { acceptedEncodings, mayBePrecompressed } from './dashboard-encoding';

/** Vite's hashed build output: a changed file gets a new name, so a cached one never goes stale. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current hashed assets: the browser must ask again on every load. */
const REVALIDATE = 'no-cache';

export interface DashboardFilesDeps {
  /** DASHBOARD_DIR: the dashboard's build output (index.html and assets/). */
  dir: string;
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}

// A segment that could leave the directory or name a hidden file is never looked up: such paths
// are client routes at most, and get index.html like any other unknown path.
const safeSegment = (segment: string) => segment !== '' && !segment.startsWith('.') && !/[/\\\0]/.test(segment);

/**
 * The single-page app's files under /app/: hashed assets cached for a year, index.html for every
 * other path (the client router owns them), revalidated on each load; each compressed when the build
 * left a compressed copy the browser accepts. Files are looked up on each
 * request, so a `pnpm build` while the api runs is served at once.
 */
export function createDashboardFiles(deps: DashboardFilesDeps) {
  const root = path.resolve(deps.dir);
  const index = path.join(root, 'index.html');

  const sendFile = (res: Response, file: string) =>
    new Promise<void>((resolve, reject) => {
      res.sendFile(file, { cacheControl: false, dotfiles: 'deny' }, (err) => (err ? reject(err) : resolve()));
    });

  // The build wrote `.br` and `.gz` copies beside each text file (vite-precompress.ts): the best one the
  // browser accepts goes out as is, so nothing is compressed per request. A file without copies (too small
  // to gain) goes out as it is.
  const send = async (res: Response, file: string, cacheControl: string) => {
    res.setHeader('Cache-Control', cacheControl);
    if (!mayBePrecompressed(file)) return sendFile(res, file);
    res.vary('Accept-Encoding');
    for (const { coding, suffix } of acceptedEncodings(res.req.headers['accept-encoding'])) {
      if (!(await isFile(file + suffix))) continue;
      // The type of the file itself, not of its compressed copy (send leaves a type already set alone).
      res.type(path.extname(file));
      res.setHeader('Content-Encoding', coding);
      return sendFile(res, file + suffix);
    }
    return sendFile(res, file);
  };

  return {
    /** Answers GET /app/<segments>: a built file, or index.html; 503 while there is no build. */
    async serve(res: Response, segments: readonly string[]): Promise<void> {
      if (!(await isFile(index))) {
        throw new AppError('dashboard_not_built', `No index.html in DASHBOARD_DIR: run \`pnpm build\` to build it.`);
      }
      const clean = segments.every(safeSegment) ? segments : [];
      const file = path.join(root, ...clean);
      const isAsset = clean[0] === 'assets';
      if (clean.length > 0 && (await isFile(file))) return send(res, file, isAsset ? IMMUTABLE : REVALIDATE);
      // A missing hashed asset answered with HTML would fail as a MIME-type error in the browser.
      if (isAsset) throw new AppError('not_found', 'No such dashboard asset; reload the page for the current build.');
      return send(res, index, REVALIDATE);
    },
  };
}
