import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createCommandContext } from '../src/context';
import { buildProgram } from '../src/program';
import { runCli } from '../src/run-cli';
import { fakeDeps } from './fake-deps';

const pathsOf = (cmd: Command, prefix: string[] = []): string[][] =>
  cmd.commands
    .filter((c) => c.name() !== 'help')
    .flatMap((c) => [[...prefix, c.name()], ...pathsOf(c, [...prefix, c.name()])]);

describe('relay --help', () => {
  const commands = pathsOf(buildProgram(createCommandContext(fakeDeps())));

  it('has the documented command groups', () => {
    const top = new Set(commands.map((c) => c[0]));
    for (const name of ['login', 'logout', 'whoami']) expect(top).toContain(name);
  });

  it.each(commands.map((c) => [c.join(' ')]))('relay %s --help has a description and examples, exit 0', async (c) => {
    const deps = fakeDeps();
    const code = await runCli([...c.split(' '), '--help'], deps);
    expect(code).toBe(0);
    expect(deps.out()).toMatch(/^Usage: relay /);
    expect(deps.out()).toContain('Examples:\n  $ relay');
    // The program's options (--json, --yes, …) are listed on every command's help too.
    expect(deps.out()).toMatch(/--json\s/);
  });

  it('prints the version, and answers an unknown command with exit 2 and a hint', async () => {
    const deps = fakeDeps();
    expect(await runCli(['--version'], deps)).toBe(0);
    expect(deps.out().trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const bad = fakeDeps();
    expect(await runCli(['frobnicate'], bad)).toBe(2);
    expect(bad.err()).toContain("unknown command 'frobnicate'");
  });
});
