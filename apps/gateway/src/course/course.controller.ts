import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AccountRateLimitGuard } from '../accounts/account-rate-limit.guard';
import { AccountTokenGuard } from '../accounts/account-token.guard';
import { AuthenticatedAccount, CurrentAccount } from '../accounts/authenticated-account';
import { CreateCourseRuleDto, ListCourseEventsDto } from './dto/course.dto';
import { CourseEventView, CourseRuleView, CourseService } from './course.service';
import { ApiAccountToken, ApiProblems } from '../openapi/gateway-problems.decorator';
import { CourseEventPageDto } from './dto/course-event.dto';
import { CourseRuleDto } from './dto/course-rule.dto';

/** The account's course rules (`/v1/course/rules`) and the record of its course events (`GET /v1/course/events`). */
@ApiTags('course')
@ApiAccountToken()
@Controller('v1/course')
@UseGuards(AccountTokenGuard, AccountRateLimitGuard)
export class CourseController {
  constructor(private readonly course: CourseService) {}

  @Post('rules')
  @HttpCode(201)
  @ApiOperation({ summary: 'Send a template on a channel when a course event of a type comes' })
  @ApiCreatedResponse({ type: CourseRuleDto })
  @ApiProblems(403, 404, 409, 422)
  createRule(
    @CurrentAccount() account: AuthenticatedAccount,
    @Body() dto: CreateCourseRuleDto,
  ): Promise<CourseRuleView> {
    return this.course.createRule(account, dto);
  }

  @Get('rules')
  @ApiOperation({ summary: "The account's course rules" })
  @ApiOkResponse({ type: [CourseRuleDto] })
  listRules(@CurrentAccount() account: AuthenticatedAccount): Promise<CourseRuleView[]> {
    return this.course.listRules(account);
  }

  @Delete('rules/:id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a course rule' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiProblems(403, 404)
  deleteRule(@CurrentAccount() account: AuthenticatedAccount, @Param('id') id: string): Promise<void> {
    return this.course.deleteRule(account, id);
  }

  @Get('events')
  @ApiOperation({ summary: "The account's course events and what became of them, newest first, paged" })
  @ApiOkResponse({ type: CourseEventPageDto })
  @ApiProblems(400)
  listEvents(
    @CurrentAccount() account: AuthenticatedAccount,
    @Query() query: ListCourseEventsDto,
  ): Promise<{ data: CourseEventView[]; next_cursor: string | null }> {
    return this.course.listEvents(account, query);
  }
}
