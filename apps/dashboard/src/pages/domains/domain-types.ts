// The custom-domain answers as the dashboard reads them (GET/POST /api/domains, POST /api/domains/{id}/verify).

export interface DomainRecord {
  type: 'CNAME' | 'TXT';
  name: string;
  value: string;
}

export interface Domain {
  id: string;
  domain: string;
  status: 'pending' | 'active';
  verification_token: string;
  records: DomainRecord[];
  created_at: string;
  verified_at: string | null;
  last_checked_at: string | null;
  last_check_error: string | null;
}

export interface RecordCheck {
  ok: boolean;
  name: string;
  expected: string;
  found: string[];
  problem: string | null;
}

export interface DomainChecks {
  cname: RecordCheck;
  txt: RecordCheck;
}
