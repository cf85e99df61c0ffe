import type { AnswerOf } from '@relay/client';
import type { Colors } from '../../output/colors';

type Health = AnswerOf<'/rules/{id}', 'get'>['health'];

/**
 * A rule's or a destination's endpoint health for people: healthy, or unhealthy with why and since when, and what
 * waits until which command resumes it.
 */
export function healthText(
  health: Health,
  colors: Colors,
  waiting = 'events pause until `relay rules resume`',
): string {
  if (health.status === 'healthy') return colors.green('healthy');
  const why = health.reason === 'gone' ? 'the target answered 410 Gone' : 'every attempt failed for the span';
  return `${colors.red('unhealthy')} since ${health.since ?? '?'} (${why}); ${waiting}`;
}
