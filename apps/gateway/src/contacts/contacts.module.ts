import { Module } from '@nestjs/common';
import { Clock } from '@app/server';
import { AccountsModule } from '../accounts/accounts.module';
import { ConsentSettingsController } from './consent-settings.controller';
import { ContactsController } from './contacts.controller';
import { ContactsRepository } from './contacts.repository';
import { ContactsService } from './contacts.service';
import { ContactImportsController } from './imports/contact-imports.controller';
import { ContactImportsRepository } from './imports/contact-imports.repository';
import { ContactImportsService } from './imports/contact-imports.service';
import { ImportBodyParser } from './imports/import-body.parser';

/** Contacts of gateway accounts, their consent and the business's consent settings. */
@Module({
  imports: [AccountsModule],
  controllers: [ContactImportsController, ContactsController, ConsentSettingsController],
  providers: [
    ContactsRepository,
    ContactsService,
    ContactImportsRepository,
    ContactImportsService,
    ImportBodyParser,
    Clock,
  ],
  exports: [ContactsRepository, ContactsService],
})
export class ContactsModule {}
