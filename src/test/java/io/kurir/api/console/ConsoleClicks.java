package io.kurir.api.console;

import java.time.Duration;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * What the console's browser tests do on a page: fill a field, press a button (saying yes when it
 * asks first) and wait for the page that answers. The waits end as soon as their condition holds.
 */
final class ConsoleClicks {
  private ConsoleClicks() {}

  /**
   * A wait that ends as soon as its condition holds. The seconds say how long a quiet machine
   * needs; every wait is at least a minute, a hang guard that a busy machine does not trip.
   */
  static WebDriverWait waitUpTo(ChromeDriver page, int seconds) {
    return new WebDriverWait(page, Duration.ofSeconds(Math.max(seconds, 60)));
  }

  static void fill(ChromeDriver page, String name, String value) {
    WebElement field = page.findElement(By.cssSelector("main form [name=" + name + "]"));
    field.clear();
    field.sendKeys(value);
  }

  /** Clicks a button of the page's forms and waits for the page that answers. */
  static void submit(ChromeDriver page, String buttonText) {
    click(page, button(page, buttonText));
  }

  /** Clicks a button that asks first, says yes, and waits for the page that answers. */
  static void submitConfirmed(ChromeDriver page, String buttonText) {
    WebElement before = page.findElement(By.cssSelector("main"));
    button(page, buttonText).click();
    page.switchTo().alert().accept();
    waitUpTo(page, 10).until(d -> replaced(before));
  }

  static void click(ChromeDriver page, WebElement button) {
    WebElement before = page.findElement(By.cssSelector("main"));
    button.click();
    waitUpTo(page, 10).until(d -> replaced(before));
    waitUpTo(page, 10)
        .until(d -> "complete".equals(page.executeScript("return document.readyState")));
  }

  private static WebElement button(ChromeDriver page, String text) {
    return page.findElement(By.xpath("//main//button[normalize-space()='" + text + "']"));
  }

  /**
   * Whether {@code before} belongs to a page that has gone. Chromium answers a look at an element
   * of a page it is leaving either as stale or with an inspector error ("does not belong to the
   * document"), depending on when the look lands: both mean the page was replaced.
   */
  static boolean replaced(WebElement before) {
    try {
      before.isEnabled();
      return false;
    } catch (StaleElementReferenceException e) {
      return true;
    } catch (WebDriverException e) {
      if (String.valueOf(e.getMessage()).contains("does not belong to the document")) {
        return true;
      }
      throw e;
    }
  }
}
