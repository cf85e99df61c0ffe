import type { paths } from './schema';

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete';
type Success<O> = O extends { responses: { 200: infer R } } ? R : O extends { responses: { 201: infer R } } ? R : never;

/**
 * The JSON body of an operation's success answer (200, else 201), straight from the generated types:
 * `AnswerOf<'/rules/{id}', 'get'>` is a rule. Clients name the shapes they show with it instead of
 * writing them again, so an API change breaks their build, not their pages.
 */
export type AnswerOf<P extends keyof paths, M extends Method & keyof paths[P]> =
  Success<paths[P][M]> extends { content: { 'application/json': infer B } } ? B : never;
