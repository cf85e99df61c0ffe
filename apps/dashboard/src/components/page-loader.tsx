import { Skeleton, Stack } from '@mantine/core';

/**
 * The loading skeleton shown while a page's chunk or first data arrives. A status region, so that its name is
 * allowed (axe's aria-prohibited-attr: a plain div may not carry aria-label) and screen readers announce it.
 */
export function PageLoader() {
  return (
    <Stack role="status" aria-busy="true" aria-label="Loading">
      <Skeleton height={32} width="40%" />
      <Skeleton height={18} />
      <Skeleton height={18} />
      <Skeleton height={18} width="80%" />
    </Stack>
  );
}
