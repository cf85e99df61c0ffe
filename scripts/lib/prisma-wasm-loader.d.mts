import type { Plugin } from 'esbuild';

export function readingLoader(specifier: string): string;
export function withReadingLoader(source: string, file: string): string;
export function prismaWasmLoader(): Plugin;
