import { Module } from '@nestjs/common';
import { SandboxClock } from '../whatsapp/sandbox-clock';
import { CourseSandboxController } from './course.controller';
import { CoursePlatforms } from './course-platforms';

/** The course platform emulator: fires process callbacks at the gateway, receives its status events. */
@Module({
  controllers: [CourseSandboxController],
  providers: [CoursePlatforms, SandboxClock],
})
export class CourseSandboxModule {}
