import { Skeleton, Stack } from '@mantine/core';

/** The loading skeleton shown while a page's chunk or first data arrives. */
export function PageLoader() {
  return (
    <Stack aria-busy="true" aria-label="Loading">
      <Skeleton height={32} width="40%" />
      <Skeleton height={18} />
      <Skeleton height={18} />
      <Skeleton height={18} width="80%" />
    </Stack>
  );
}
