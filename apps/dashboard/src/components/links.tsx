import { Anchor, type AnchorProps, NavLink, type NavLinkProps } from '@mantine/core';
import { createLink } from '@tanstack/react-router';
import type { AnchorHTMLAttributes, Ref } from 'react';

// Mantine components as router links with typed `to`/`params`/`search`: the `component={Link}` form loses
// the route types, and createLink needs a plain (non-polymorphic) anchor component.
type AnchorAttrs = AnchorHTMLAttributes<HTMLAnchorElement> & { ref?: Ref<HTMLAnchorElement> };

export const AnchorLink = createLink((props: AnchorProps & AnchorAttrs) => <Anchor {...props} />);
export const NavLinkLink = createLink((props: NavLinkProps & Omit<AnchorAttrs, 'color' | 'style'>) => (
  <NavLink component="a" {...props} />
));
