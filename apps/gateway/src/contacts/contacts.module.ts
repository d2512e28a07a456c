import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module';
import { ConsentSettingsController } from './consent-settings.controller';
import { ContactsController } from './contacts.controller';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';

/** Contacts of gateway accounts, their consent and the business's consent settings. */
@Module({
  imports: [AccountsModule],
  controllers: [ContactsController, ConsentSettingsController],
  providers: [ContactsRepository, ContactsService],
  exports: [ContactsRepository, ContactsService],
})
export class ContactsModule {}
