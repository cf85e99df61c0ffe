import {
  IconActivity,
  IconBuildingSkyscraper,
  IconGauge,
  IconKey,
  IconRoute,
  IconSend,
  IconSettings,
  IconUserCircle,
  IconWorld,
  type Icon,
} from '@tabler/icons-react';
import type { Me } from './session';

export interface NavItem {
  label: string;
  to: string;
  icon: Icon;
  /** Who sees the entry; an operator has no organization pages, members no platform console. */
  visible: (me: Me) => boolean;
}

const member = (me: Me) => me.kind !== 'operator';
const admin = (me: Me) => me.role === 'admin';
const operator = (me: Me) => me.kind === 'operator';
/** A person signed in (user or operator): an API key has no password to change. */
const person = (me: Me) => me.kind === 'user' || me.kind === 'operator';

// Every page reachable from the navigation bar. Pages not yet routed are still listed, so adding a route is enough.
export const navItems: NavItem[] = [
  { label: 'Overview', to: '/', icon: IconGauge, visible: member },
  { label: 'Events', to: '/events', icon: IconActivity, visible: member },
  { label: 'Rules', to: '/rules', icon: IconRoute, visible: member },
  { label: 'Send', to: '/send', icon: IconSend, visible: admin },
  { label: 'Domains', to: '/domains', icon: IconWorld, visible: member },
  { label: 'Access', to: '/access', icon: IconKey, visible: member },
  { label: 'Settings', to: '/settings', icon: IconSettings, visible: member },
  { label: 'Platform', to: '/platform', icon: IconBuildingSkyscraper, visible: operator },
  { label: 'Account', to: '/account', icon: IconUserCircle, visible: person },
];
