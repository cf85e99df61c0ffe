import { z } from 'zod';
import { flag, integer, parseSettings, text } from './config-schema';

const schema = z.object({ ON: flag(false), N: integer(5, 1, 10), T: text('x') });

describe('settings parsing', () => {
  it('applies defaults', () => {
    expect(parseSettings(schema, {})).toEqual({ ON: false, N: 5, T: 'x' });
  });

  it('parses values strictly', () => {
    expect(parseSettings(schema, { ON: 'true', N: '7', T: ' y ' })).toEqual({ ON: true, N: 7, T: 'y' });
  });

  it('names every bad setting in one error', () => {
    expect(() => parseSettings(schema, { ON: 'ture', N: '15s' })).toThrow(
      /ON:[\s\S]*N: must be a whole number from 1 to 10/,
    );
  });
});
