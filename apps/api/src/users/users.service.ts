import { Injectable } from '@nestjs/common';
import { unixSeconds } from '@app/contracts';
import { BalancesRepository } from '../billing/balances.repository';
import { maskPhone } from '../billing/mask-phone';
import { BalanceDto, TransactionDto } from './dto/balance.dto';

@Injectable()
export class UsersService {
  constructor(private readonly balances: BalancesRepository) {}

  /** The balance shown is what can be spent: amounts held for queued messages are not in it. */
  async balance(userId: string, fallbackCurrency: string): Promise<BalanceDto> {
    const balance = await this.balances.findBalance(userId);
    return { balance: balance?.available ?? 0, currency: (balance?.currency ?? fallbackCurrency).trim() };
  }

  /** Transactions from `startDate` 00:00 UTC until now, oldest first, recipients masked. */
  async transactions(userId: string, startDate: string): Promise<TransactionDto[]> {
    const rows = await this.balances.listTransactions(userId, new Date(`${startDate}T00:00:00Z`));
    return rows.map((t) => ({
      id: t.id,
      app_id: t.appId,
      amount: t.amount,
      currency: t.currency.trim(),
      status: t.status,
      category: t.category,
      assumed_category: t.assumedCategory,
      pricing_type: t.pricingType,
      uncharged: t.uncharged,
      recipient_phone: maskPhone(t.recipientPhone),
      timestamp: unixSeconds(t.createdAt),
    }));
  }
}
