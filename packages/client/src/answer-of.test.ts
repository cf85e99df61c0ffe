import type { AnswerOf } from './answer-of';

// Compile-time checks (pnpm typecheck): AnswerOf finds the success body, 200 or 201, and never collapses to
// `never` (which would let any use of it type-check).
type IsNever<T> = [T] extends [never] ? true : false;
type Rule = AnswerOf<'/rules/{id}', 'get'>;
type Created = AnswerOf<'/rules', 'post'>;
const notNever: [IsNever<Rule>, IsNever<Created>] = [false, false];
const rule: Pick<Rule, 'source' | 'active'> = { source: 'github', active: true };
const created: Pick<Created, 'id'> = { id: '0196' };

describe('AnswerOf', () => {
  it('names the success bodies of the generated paths', () => {
    expect([notNever, rule.source, created.id]).toEqual([[false, false], 'github', '0196']);
  });
});
