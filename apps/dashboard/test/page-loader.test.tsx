import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { PageLoader } from '../src/components/page-loader';

describe('PageLoader', () => {
  it('is a busy status region named Loading (a plain element may not carry the name)', () => {
    render(
      <MantineProvider>
        <PageLoader />
      </MantineProvider>,
    );
    const loader = screen.getByRole('status', { name: 'Loading' });
    expect(loader).toHaveAttribute('aria-busy', 'true');
  });
});
