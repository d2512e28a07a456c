import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { CampaignAudience } from '@app/contracts';
import { sqlRows } from '@app/database';
import { UnprocessableProblem } from '@app/server';
import { EstimateWarning } from './campaign-estimate';

/**
 * Why an audience resolves to nobody (docs/campaigns.md#the-estimate): each list it names that no
 * contact of the account is in (a typo), else the filter (or list) that matched no contact. An
 * estimate answers these as warnings; a launch refuses with them (`emptyAudience`).
 */
@Injectable()
export class CampaignAudienceCheck {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * The warnings for an audience of `contacts` contacts (none when it has some): one
   * `unknown_list` per list named that no contact is in, else one `no_match`.
   */
  async warnings(accountId: string, audience: CampaignAudience, contacts: number): Promise<EstimateWarning[]> {
    if (contacts > 0 || 'contact_ids' in audience) return [];
    const named = 'list' in audience ? [audience.list] : (audience.filter.lists ?? []);
    const unknown = await this.unknownLists(accountId, named);
    if (unknown.length) {
      return unknown.map((list) => ({
        code: 'unknown_list',
        list,
        detail: `no contact of the account is in the list "${list}"`,
      }));
    }
    const filter = 'list' in audience ? { list: audience.list } : audience.filter;
    return [
      {
        code: 'no_match',
        filter,
        detail:
          'list' in audience
            ? `the list "${audience.list}" has no contacts`
            : `no contact matches the filter ${JSON.stringify(audience.filter)}`,
      },
    ];
  }

  /** The names among `lists` that no contact of the account is in (one indexed probe each). */
  private async unknownLists(accountId: string, lists: string[]): Promise<string[]> {
    if (!lists.length) return [];
    const rows = await sqlRows<{ list: string; known: boolean }>(
      this.ds,
      `SELECT l.list, EXISTS (SELECT 1 FROM contacts c WHERE c.account_id = $1 AND c.lists @> ARRAY[l.list]) AS known
         FROM unnest($2::text[]) AS l(list)`,
      [accountId, [...new Set(lists)]],
    );
    return rows.filter((r) => !r.known).map((r) => r.list);
  }
}

/**
 * The launch's refusal of an audience that resolves to nobody: 422 `/problems/empty-audience`,
 * naming the unknown lists or the filter (its `warnings`, as the estimate gives them).
 */
export function emptyAudience(warnings: EstimateWarning[]): UnprocessableProblem {
  const detail = warnings.length
    ? `The audience resolves to nobody: ${warnings.map((w) => w.detail).join('; ')}.`
    : 'The audience resolves to nobody.';
  return new UnprocessableProblem('empty-audience', 'Empty audience', detail, { warnings });
}
